import { MemoryStore } from '@floodgate/core'
import { describeAdapterConformance } from '@floodgate/testkit'
import { koaDriver } from './driver.js'

describeAdapterConformance(koaDriver, { create: () => new MemoryStore() })

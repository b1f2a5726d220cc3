import { MemoryStore } from '@floodgate/core'
import { describeAdapterConformance } from '@floodgate/testkit'
import { expressDriver } from './driver.js'

describeAdapterConformance(expressDriver, { create: () => new MemoryStore() })

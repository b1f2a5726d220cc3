import { MemoryStore } from '@floodgate/core'
import { describeAdapterConformance } from '@floodgate/testkit'
import { fastifyDriver } from './driver.js'

describeAdapterConformance(fastifyDriver, { create: () => new MemoryStore() })

import { MemoryStore } from '@floodgate/core'
import { describeStoreConformance } from '../src/index.js'

describeStoreConformance('MemoryStore', { create: () => new MemoryStore() })

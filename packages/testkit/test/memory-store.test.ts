import { MemoryStore } from '@floodgate/core'
import { describeStoreConformance } from '../src/index.js'

describeStoreConformance('MemoryStore', { create: () => new MemoryStore() })
describeStoreConformance('MemoryStore (maxKeys 4: eviction under pressure)', {
  create: () => new MemoryStore({ maxKeys: 4 }),
  sequences: 4,
})

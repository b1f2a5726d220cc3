import { MemoryStore } from '@floodgate/core'
import { testStore } from '../src/index.js'

testStore({ name: 'MemoryStore', create: () => new MemoryStore() })
testStore({
  name: 'MemoryStore on its own clock (calls without a time)',
  create: () => new MemoryStore(),
  time: 'own',
})

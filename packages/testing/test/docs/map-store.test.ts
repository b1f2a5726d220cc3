import { testStore } from '@floodgate/testing'
import { MapStore } from './map-store.js'

testStore({ name: 'MapStore', create: ({ clock }) => new MapStore(clock.now) })
testStore({ name: 'MapStore on its own clock', create: () => new MapStore(), time: 'own' })

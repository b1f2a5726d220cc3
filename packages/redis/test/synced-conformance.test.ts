import { testStore } from '@floodgate/testing'
import { RedisStore, SyncedStore } from '../src/index.js'
import { sharedTestClient, type TestClient, testPrefix } from './helpers.js'

// The SyncedStore through the store conformance suite: the two window algorithms it counts (it refuses the
// others at creation), over a RedisStore on the shared Redis, its syncs on the suite's clock and timers.
const clients = new Map<SyncedStore, TestClient>()

testStore({
  name: 'SyncedStore (over a RedisStore, ioredis)',
  algorithms: ['fixed-window', 'sliding-window-counter'],
  async create({ clock, timers }) {
    const opened = await sharedTestClient('ioredis')
    const redis = new RedisStore({ client: opened.client, prefix: testPrefix('synced-conformance') })
    const store = new SyncedStore({
      store: redis,
      processes: 1,
      clock: clock.now,
      timers: { setTimeout: timers.set, clearTimeout: timers.clear },
    })
    clients.set(store, opened)
    return store
  },
  async destroy(store) {
    await store.close()
    await clients.get(store)?.close()
  },
})

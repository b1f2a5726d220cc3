// A key a SyncedStore forgets (to make room, or on reset) while a sync carrying it is still in flight: what
// is still done to it afterwards (its sync failing, its units made pending again) must not write into the key
// that takes its place, and no key is forgotten while units it admitted are not in Redis yet. On a virtual
// clock, with syncs fired by hand and one script call held and failed on demand, against the machine's Redis.
import { fixedWindow, MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { RedisStore, SyncedStore } from '../src/index.js'
import { manualTimers } from './fixtures/synced-timers.js'
import { sharedRedisForFile } from './helpers.js'

const shared = sharedRedisForFile('synced-forgotten')
const { prefix } = shared
const start = Date.UTC(2026, 0, 1, 12)
const algorithm = fixedWindow({ limit: 10, window: '1h' })

/** A client whose next script call, once `hold()` is asked, waits until `fail()` answers it with an error reply. */
function holdingClient() {
  let holding = false
  const held: ((error: Error) => void)[] = []
  return {
    client: {
      evalsha: (...args: unknown[]) => {
        if (!holding) return (shared.client.evalsha as (...a: unknown[]) => Promise<unknown>)(...args)
        holding = false
        return new Promise((_, reject) => held.push(reject))
      },
      eval: (...args: unknown[]) => (shared.client.eval as (...a: unknown[]) => Promise<unknown>)(...args),
      del: (key: string) => shared.client.del(key),
    },
    hold: () => {
      holding = true
    },
    fail: () => {
      const error = new Error('ERR injected by the test')
      error.name = 'ReplyError'
      held.shift()!(error)
    },
    get held() {
      return held.length
    },
  }
}

const tick = () => new Promise((resolve) => setImmediate(resolve))

describe('SyncedStore: a key forgotten while its sync is in flight', () => {
  for (const how of ['reset', 'made room for another'] as const) {
    it(`${how}: its sync failing later writes nothing into the key that took its slot`, async () => {
      const h = holdingClient()
      const store = new SyncedStore({
        store: new RedisStore({
          client: h.client as never,
          prefix: `${prefix}:${how === 'reset' ? 'r' : 'e'}`,
        }),
        processes: 1,
        timers: manualTimers(),
        clock: () => start,
        maxKeys: how === 'reset' ? 100 : 1,
        onError: () => {},
      })
      const memory = new MemoryStore()
      const both = async (key: string) => {
        const synced = await store.consume(algorithm, key, 1, start)
        const reference = memory.consume(algorithm, key, 1, start)
        return [synced.allowed, reference.allowed]
      }
      await both('A') // A read, one unit pending
      h.hold()
      const flight = store.sync() // carries A's unit, held
      await tick()
      expect(h.held).toBe(1)
      if (how === 'reset') {
        void store.reset(algorithm, 'A').catch(() => {})
        memory.reset(algorithm, 'A')
      }
      // B is new: reset, A has left its slot to B; past maxKeys, A (its unit in flight) is kept and B added.
      for (let i = 0; i < 5; i++) expect(await both('B')).toEqual([true, true])
      h.fail() // A's sync fails: its unit is pending again, on A alone
      await flight
      await store.sync()
      const raw = await shared.client.getBuffer(store.store.keyOf(algorithm, 'B'))
      expect(raw?.readDoubleLE(8)).toBe(5) // B's five, not A's one
      const rest: boolean[][] = []
      for (let i = 0; i < 10; i++) rest.push(await both('B'))
      expect(rest.map(([s]) => s)).toEqual(rest.map(([, m]) => m)) // five more, then refused: as memory
      await store.close()
    })
  }

  it('no key is forgotten while units it admitted are not in Redis: past maxKeys, the table grows instead', async () => {
    const store = new SyncedStore({
      store: new RedisStore({ client: shared.client, prefix: `${prefix}:grow` }),
      processes: 1,
      timers: manualTimers(),
      clock: () => start,
      maxKeys: 1,
    })
    const limited = fixedWindow({ limit: 5, window: '1h' })
    let admittedA = 0
    // A five times, then B once, three times over, with no sync in between: A's units must never be lost.
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 5; i++) if ((await store.consume(limited, 'A', 1, start)).allowed) admittedA++
      await store.consume(limited, 'B', 1, start)
    }
    expect(admittedA).toBe(5)
    expect(store.stats.keys).toBe(2) // past maxKeys: both have units to send
    await store.sync()
    const raw = await shared.client.getBuffer(store.store.keyOf(limited, 'A'))
    expect(raw?.readDoubleLE(8)).toBe(5)
    // Synced, one of them can now be forgotten to make room for a third.
    await store.consume(limited, 'C', 1, start)
    expect(store.stats.keys).toBe(2)
    await store.close()
  })
})

// Near the limit (`exactWithin`) Redis decides each admission. One sent while a sync of the same key is in
// flight runs in Redis after that sync, so the sync's read lands without it: the admission must not vanish
// from what the process knows when the read lands later than the admission's own reply (a sync's calls land
// together, and another call of it, to a slower node, can answer late). On a virtual clock, with syncs fired
// by hand, against the machine's Redis.
import { fixedWindow, MemoryStore, slidingWindowCounter } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { RedisStore, SyncedStore } from '../src/index.js'
import { sharedRedisForFile } from './helpers.js'

const shared = sharedRedisForFile('synced-behind-flight')
const { prefix } = shared

describe('SyncedStore: an admission Redis decides behind a sync in flight', () => {
  it('is still known when the sync lands after it: the process admits no more than one store would', async () => {
    // Every call runs at once in Redis; the reply of the call made when `late` is armed is handed back only
    // on release(), as a slower Cluster node's would be.
    let late = 0
    const held: (() => void)[] = []
    const client = {
      evalsha: (...args: unknown[]) => {
        const reply = (shared.client.evalsha as (...a: unknown[]) => Promise<unknown>)(...args)
        if (late > 0 && --late === 0) {
          return new Promise((resolve, reject) => held.push(() => reply.then(resolve, reject)))
        }
        return reply
      },
      eval: (...args: unknown[]) => (shared.client.eval as (...a: unknown[]) => Promise<unknown>)(...args),
      del: (key: string) => shared.client.del(key),
    }
    let fire: (() => void) | undefined
    const timers = {
      setTimeout: (callback: () => void) => {
        fire = callback
        return 1
      },
      clearTimeout: () => {
        fire = undefined
      },
    }
    const store = new SyncedStore({
      store: new RedisStore({ client: client as never, prefix }),
      processes: 1,
      exactWithin: 0.2,
      timers,
    })
    const memory = new MemoryStore()
    const swc = slidingWindowCounter({ limit: 10, window: '1s' })
    const other = fixedWindow({ limit: 100, window: '1m' })
    const W = Date.UTC(2026, 0, 1, 12)
    const both = async (t: number) => {
      const synced = await store.consume(swc, 'k', 1, t)
      const reference = memory.consume(swc, 'k', 1, t)
      return [synced.allowed, reference.allowed]
    }
    await store.consume(other, 'j', 1, W) // a key of another algorithm: a second call in the sync
    for (let i = 0; i < 8; i++) expect(await both(W + 100)).toEqual([true, true]) // local (10 x 0.8)
    late = 2
    fire!() // the sync: k's call answered (+8, reads 8), j's held
    for (let i = 0; i < 2; i++) expect(await both(W + 100)).toEqual([true, true]) // Redis: 9, 10
    held.shift()!() // j answers: the sync lands, with k's read of 8
    await new Promise((resolve) => setTimeout(resolve, 20))
    const raw = await shared.client.getBuffer(store.store.keyOf(swc, 'k'))
    expect(raw?.readDoubleLE(8)).toBe(10)
    expect((await store.peek(swc, 'k', 1, W + 100)).remaining).toBe(
      memory.peek(swc, 'k', 1, W + 100).remaining,
    )
    // The next window, half of the last one still weighing: as many as one store admits, no more.
    const next: boolean[][] = []
    for (let i = 0; i < 8; i++) next.push(await both(W + 1500))
    expect(next.filter(([s]) => s).length).toBeLessThanOrEqual(next.filter(([, m]) => m).length)
    await store.close()
  })
})

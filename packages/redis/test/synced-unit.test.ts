import { createHash } from 'node:crypto'
import {
  type Algorithm,
  createLimiter,
  fixedWindow,
  gcra,
  RateLimitConfigError,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import { bounded, freePort } from '@floodgate/test-harness'
import {
  agreeOnRandomOperation,
  algorithmCases,
  referenceModel,
  seededRandom,
  virtualClock,
} from '@floodgate/testing'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RedisStore, type SyncedDecision, SyncedStore, type SyncedStoreOptions } from '../src/index.js'
import { SYNCED_SCRIPTS } from '../src/synced/sync-script.js'
import { manualTimers } from './fixtures/synced-timers.js'
import { sharedClient, sharedTestClient, testPrefix } from './helpers.js'

// Unit tests of the SyncedStore on a virtual clock: every call passes its time, syncs run when the test fires
// the injected timers, and the totals live in the real shared Redis (db 9, a prefix of this file's own).
let client: Redis
const prefix = testPrefix('synced-unit')
const start = Date.UTC(2026, 0, 1, 12)
const stores: SyncedStore[] = []

beforeAll(async () => {
  client = await sharedClient()
})
afterAll(async () => {
  for (const store of stores) await store.close()
  const keys = await client.keys(`${prefix}*`)
  if (keys.length > 0) await client.del(...keys)
  await client.quit()
})

function synced(options: Partial<SyncedStoreOptions> & { name: string }) {
  const clock = virtualClock(start)
  const timers = manualTimers()
  const { name, ...rest } = options
  const store = new SyncedStore({
    // A bound for a busy machine: a thousand decisions in flight must not time out into local decisions.
    store: bounded(new RedisStore({ client, prefix: `${prefix}:${name}` }), 10_000),
    clock: clock.now,
    timers,
    processes: 1,
    ...rest,
  })
  stores.push(store)
  return { store, clock, timers }
}

describe('SyncedStore: options and algorithms', () => {
  it('rejects invalid options at creation, naming the option, the value and what is allowed', () => {
    const store = new RedisStore({ client })
    const bad: [Record<string, unknown>, RegExp][] = [
      [{}, /`SyncedStore.store` to be a RedisStore/],
      [{ store, syncEvery: '0s' }, /`SyncedStore.syncEvery`.*got '0s'/],
      [
        { store, exactWithin: 1 },
        /`SyncedStore.exactWithin` to be a number from 0 \(up to 1, excluded\), got 1/,
      ],
      [{ store, processes: 0 }, /`SyncedStore.processes` to be 'auto' or a whole number >= 1, got 0/],
      [{ store, offline: 'open' }, /`SyncedStore.offline` to be 'share' or 'limit', got 'open'/],
      [{ store, timers: {} }, /`SyncedStore.timers`/],
      [
        { store, syncevery: '50ms' },
        /`SyncedStore.syncevery` to be a known option, got '50ms' \(string\)\. Did you mean `syncEvery`\?/,
      ],
    ]
    for (const [options, message] of bad) {
      expect(() => new SyncedStore(options as never)).toThrow(RateLimitConfigError)
      expect(() => new SyncedStore(options as never)).toThrow(message)
    }
  })

  it('counts the window algorithms and refuses the others with a RateLimitConfigError that says why', () => {
    const { store } = synced({ name: 'kinds' })
    for (const algorithm of [
      fixedWindow({ limit: 1, window: '1s' }),
      slidingWindowCounter({ limit: 1, window: '1s' }),
    ]) {
      expect(() => store.checkAlgorithm(algorithm)).not.toThrow()
    }
    const refused: Algorithm[] = [
      slidingWindowLog({ limit: 5, window: '1s' }),
      tokenBucket({ capacity: 5, refillRate: 1 }),
      gcra({ rate: 5 }),
    ]
    for (const algorithm of refused) {
      expect(() => store.checkAlgorithm(algorithm)).toThrow(RateLimitConfigError)
      expect(() => store.checkAlgorithm(algorithm)).toThrow(
        new RegExp(`fixedWindow\\(...\\) or slidingWindowCounter\\(...\\).*got '${algorithm.kind}'`),
      )
      expect(() => store.consume(algorithm, 'k', 1, start)).toThrow(RateLimitConfigError)
    }
  })

  it('each script SHA1 is the one SCRIPT LOAD answers', async () => {
    for (const script of SYNCED_SCRIPTS) {
      expect(script.sha).toBe(createHash('sha1').update(script.source).digest('hex'))
      expect(await client.script('LOAD', script.source), script.name).toBe(script.sha)
    }
  })

  it('the sync script refuses units that are not two numbers per key, and writes nothing', async () => {
    const sync = SYNCED_SCRIPTS.find((script) => script.name === 'synced_sync')!
    const keys = [`${prefix}:wire:a`, `${prefix}:wire:b`]
    const head = ['b', String(start), '2000', 'fw', '60000', String(start - 60_000), String(start)]
    await expect(client.eval(sync.source, 2, ...keys, ...head, '3 0 4')).rejects.toThrow(
      /3 unit counts for 2 keys \(two per key\)/,
    )
    await expect(client.eval(sync.source, 2, ...keys, ...head, '3 0 x 0')).rejects.toThrow(
      /a unit count that is not a number: x/,
    )
    expect(await client.exists(...keys)).toBe(0)
    // Well formed, the same call adds the units: the current window's first, then the previous one's.
    await client.eval(sync.source, 2, ...keys, ...head, '3 0 4 0')
    expect((await client.getBuffer(keys[1]!))?.readDoubleLE(8)).toBe(4)
    await client.del(...keys)
  })
})

describe('SyncedStore: one process decides as the algorithm does', () => {
  const windowCases = algorithmCases.filter((c) =>
    ['fixed-window', 'sliding-window-counter'].includes(c.name),
  )
  for (const algorithmCase of windowCases) {
    it(`${algorithmCase.name}: random sequences with syncs at random moments, some landing mid-window-change`, async () => {
      const algorithm = algorithmCase.create()
      const { store, timers, clock } = synced({ name: `ref-${algorithmCase.name}` })
      for (let seed = 1; seed <= 6; seed++) {
        const random = seededRandom(seed * 104_729)
        const reference = referenceModel(algorithm)
        const keys = [`a${seed}`, `b${seed}`]
        let now = start + Math.floor(random() * 10_000)
        let flight: Promise<void> | undefined
        for (let op = 0; op < 80; op++) {
          const roll = random()
          if (roll < 0.4) now += 0
          else if (roll < 0.85) now += Math.floor(random() * 400)
          else if (roll < 0.97) now += Math.floor(random() * 2500)
          else now += 0.25 + Math.floor(random() * 100)
          clock.set(now)
          // A sync starts now and then; it lands while the next decisions (synchronous) are being made.
          if (random() < 0.3) {
            timers.fire()
            flight = store.sync()
          }
          if (flight && random() < 0.5) {
            await flight
            flight = undefined
          }
          const where = `seed ${seed}, op ${op}, t=+${now - start}`
          await agreeOnRandomOperation({ store, reference, algorithm, keys, random, now, where })
        }
        await flight
      }
      expect(store.stats.exact).toBe(0)
      expect(store.stats.failedCalls).toBe(0)
    }, 60_000)
  }
})

describe('SyncedStore: syncs', () => {
  const algorithm = fixedWindow({ limit: 100, window: '1m' })

  it('a new key is read at once; then one timer of syncEvery while there is something to send, none when idle', async () => {
    const { store, timers } = synced({ name: 'timing', syncEvery: '50ms' })
    const first = await store.consume(algorithm, 'k', 1, start)
    expect(first).toMatchObject({ allowed: true })
    expect(first.source).toBeUndefined() // counted locally
    expect(store.stats).toMatchObject({ syncs: 1, waited: 1 })
    // The admission is pending: one timer, of syncEvery.
    expect(timers.pending).toEqual([50])
    for (let i = 0; i < 10; i++) store.consume(algorithm, 'k', 1, start + 1)
    expect(timers.pending).toEqual([50])
    expect(await client.get(store.store.keyOf(algorithm, 'k'))).toBeNull()
    expect(timers.fire()).toBe(1)
    await store.sync()
    expect(store.stats).toMatchObject({ syncs: 2, calls: 2, keysSynced: 2 })
    const raw = await client.getBuffer(store.store.keyOf(algorithm, 'k'))
    expect(raw?.readDoubleLE(8)).toBe(11)
    // Nothing new to send: no timer is left behind.
    expect(timers.pending).toEqual([])
    const peeked = await store.peek(algorithm, 'k', 1, start + 2)
    expect(peeked).toMatchObject({ remaining: 89 })
    expect(peeked.source).toBeUndefined()
    expect(timers.pending).toEqual([50]) // a peek asks for a fresh total at the next sync
  })

  it("on the Redis server's clock (no time passed): every sync's read makes the budgets, and each key admits exactly its limit", async () => {
    const timers = manualTimers()
    const store = new SyncedStore({
      store: bounded(new RedisStore({ client, prefix: `${prefix}:server-clock` }), 10_000),
      timers,
      processes: 1,
    })
    stores.push(store)
    const limit = fixedWindow({ limit: 50, window: '1d' })
    const allowed = { a: 0, b: 0 }
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 15; i++) {
        for (const key of ['a', 'b'] as const)
          if ((await store.consume(limit, key, 1)).allowed) allowed[key]++
      }
      timers.fire()
      await store.sync()
    }
    expect(allowed).toEqual({ a: 50, b: 50 })
    for (const key of ['a', 'b']) {
      expect((await client.getBuffer(store.store.keyOf(limit, key)))?.readDoubleLE(8)).toBe(50)
    }
    expect(store.stats.local).toBeGreaterThan(store.stats.exact)
  })

  it("on the server's clock, a decision nearer either end of its window than the clock estimate's uncertainty is Redis's", async () => {
    // A local clock that stands still while Redis answers: the estimate's round trip is 0, its uncertainty 1 ms.
    const local = virtualClock(start)
    const store = new SyncedStore({
      // A bound on Redis calls no loaded machine reaches: a call timed out would be decided locally instead.
      store: bounded(new RedisStore({ client, prefix: `${prefix}:edges` }), 10_000),
      clock: local.now,
      timers: manualTimers(),
      processes: 1,
    })
    stores.push(store)
    const limit = fixedWindow({ limit: 1000, window: '10s' })
    const first = await store.consume(limit, 'k', 1) // the read measures the server's clock
    local.advance(first.resetMs - 0.5) // half a millisecond before the window ends, by this process's estimate
    const atEnd = await store.consume(limit, 'k', 1)
    expect(atEnd, JSON.stringify({ first, stats: store.stats })).toMatchObject({
      allowed: true,
      source: 'redis',
    })
    local.advance(0.5 + 0.5) // half a millisecond into the next window
    expect(await store.consume(limit, 'k', 1)).toMatchObject({ allowed: true, source: 'redis' })
    local.advance(2) // 2.5 ms in: past the uncertainty, decided here again
    const inside = await store.consume(limit, 'k', 1)
    expect(inside.allowed).toBe(true)
    expect(inside.source).toBeUndefined()
    expect(store.stats.exact).toBe(2)
  })

  it("merges the totals of several processes: each reads the others' counts back", async () => {
    const a = synced({ name: 'merge', processes: 2 })
    const b = synced({ name: 'merge', processes: 2 })
    for (let i = 0; i < 3; i++) await a.store.consume(algorithm, 'k', 1, start)
    for (let i = 0; i < 2; i++) await b.store.consume(algorithm, 'k', 1, start)
    await a.store.sync()
    await b.store.sync()
    // A key is read again at the next sync after it is used: a peek is a use.
    expect((await a.store.peek(algorithm, 'k', 1, start)).remaining).toBe(97)
    await a.store.sync()
    expect((await a.store.peek(algorithm, 'k', 1, start)).remaining).toBe(95)
    expect((await b.store.peek(algorithm, 'k', 1, start)).remaining).toBe(95)
    const raw = await client.getBuffer(a.store.store.keyOf(algorithm, 'k'))
    expect(raw?.readDoubleLE(8)).toBe(5)
  })

  it('a sync in flight while the window rolls over: the old window is counted in it, the new one after', async () => {
    const swc = slidingWindowCounter({ limit: 10, window: '1s' })
    const { store } = synced({ name: 'rollover', syncEvery: '50ms' })
    const w0 = start + 800
    for (let i = 0; i < 4; i++) await store.consume(swc, 'k', 1, w0)
    const flight = store.sync() // carries 4 units of window [12:00:00, 12:00:01)
    // Before it lands, the window rolls: 3 units in [12:00:01, 12:00:02), the 4 before weigh 0.9 at +100 ms.
    for (let i = 0; i < 3; i++) await store.consume(swc, 'k', 1, start + 1100)
    await flight
    await store.sync()
    const raw = await client.getBuffer(store.store.keyOf(swc, 'k'))
    expect([raw?.readDoubleLE(0), raw?.readDoubleLE(8), raw?.readDoubleLE(16)]).toEqual([start + 1000, 3, 4])
    // 3 + 4 x 0.9 = 6.6: 3 more fit.
    const more = [] as SyncedDecision[]
    for (let i = 0; i < 4; i++) more.push(await store.consume(swc, 'k', 1, start + 1100))
    expect(more.map((d) => d.allowed)).toEqual([true, true, true, false])
  })

  it('close() sends what is pending', async () => {
    const { store } = synced({ name: 'close' })
    await store.consume(algorithm, 'k', 1, start)
    await store.consume(algorithm, 'k', 2, start)
    await store.close()
    const raw = await client.getBuffer(store.store.keyOf(algorithm, 'k'))
    expect(raw?.readDoubleLE(8)).toBe(3)
  })

  it('reset clears the shared total in Redis, for every process', async () => {
    const a = synced({ name: 'reset', processes: 2 })
    const b = synced({ name: 'reset', processes: 2 })
    for (let i = 0; i < 30; i++) await a.store.consume(algorithm, 'k', 1, start)
    await a.store.sync()
    expect((await b.store.peek(algorithm, 'k', 1, start)).remaining).toBe(70)
    await a.store.reset(algorithm, 'k')
    expect(await client.exists(a.store.store.keyOf(algorithm, 'k'))).toBe(0)
    expect((await a.store.peek(algorithm, 'k', 1, start)).remaining).toBe(100)
    await b.store.sync() // b reads the key again at its next sync
    expect((await b.store.peek(algorithm, 'k', 1, start)).remaining).toBe(100)
  })
})

describe('SyncedStore: allowances and exactness near the limit', () => {
  const algorithm = fixedWindow({ limit: 100, window: '1m' })

  it('each process may run 1/P of what the total leaves ahead of Redis; past it, it is refused until the next sync', async () => {
    const { store } = synced({ name: 'share', processes: 4 })
    const burst = await Promise.all(Array.from({ length: 40 }, () => store.consume(algorithm, 'k', 1, start)))
    expect(burst.filter((d) => d.allowed)).toHaveLength(25)
    const refused = burst.find((d) => !d.allowed)!
    expect(refused).toMatchObject({ remaining: 0, retryAfterMs: 50 })
    expect(refused.source).toBeUndefined()
    await store.sync() // the total is now 25: a new allowance of (100 - 25) / 4
    const next = await Promise.all(Array.from({ length: 40 }, () => store.consume(algorithm, 'k', 1, start)))
    expect(next.filter((d) => d.allowed)).toHaveLength(18)
  })

  it('a process joining shrinks the allowance of a key already counting fast: the budget of one process is not used for two', async () => {
    const { store: first, clock } = synced({ name: 'joining', processes: 'auto' })
    await first.sync()
    clock.advance(100) // two sync intervals with the same count: this process's count has settled
    await first.sync()
    expect(first.processes).toBe(1)
    // Alone: the allowance is the whole limit; 10 admitted locally, the key's budget made for one process.
    const alone = []
    for (let i = 0; i < 10; i++) alone.push(await first.consume(algorithm, 'k', 1, start))
    expect(alone.every((d) => d.allowed && d.source === undefined)).toBe(true)
    const second = synced({ name: 'joining', processes: 'auto' }).store
    await second.sync()
    await first.sync() // sends the 10 and counts the processes: 2
    expect(first.processes).toBe(2)
    // (100 - 10) / 2 = 45 for this process, not the 90 a budget for one process would leave.
    const burst = await Promise.all(Array.from({ length: 60 }, () => first.consume(algorithm, 'k', 1, start)))
    expect(burst.filter((d) => d.allowed)).toHaveLength(45)
  })

  it('processes started together and hit before any of them synced: Redis decides until each count settles, so exactly the limit passes', async () => {
    // Each joined seeing 1, 2, 3 and 4 processes: shares cut by those counts would add up to 208 of 100.
    const fleet: ReturnType<typeof synced>[] = []
    for (let i = 0; i < 4; i++) {
      fleet.push(synced({ name: 'cold-start', processes: 'auto' }))
      await fleet[i]!.store.sync()
    }
    expect(fleet.map(({ store }) => store.processes)).toEqual([1, 2, 3, 4])
    const bursts = await Promise.all(
      fleet.map(({ store }) =>
        Promise.all(Array.from({ length: 250 }, () => store.consume(algorithm, 'k', 1, start))),
      ),
    )
    const admitted = bursts.flat().filter((d) => d.allowed)
    expect(admitted).toHaveLength(100)
    expect(admitted.every((d) => d.source === 'redis')).toBe(true)
    // Once each has seen 4 for two sync intervals, it decides locally again, within its share.
    for (const { store, clock } of fleet) {
      await store.sync()
      clock.advance(100)
    }
    for (const { store } of fleet) await store.sync()
    expect(fleet.map(({ store }) => store.processes)).toEqual([4, 4, 4, 4])
    const later = await fleet[0]!.store.consume(algorithm, 'k', 1, start + 60_000)
    expect(later.allowed).toBe(true)
    expect(later.source).toBeUndefined()
  })

  it('exactWithin: once the known total is within exactWithin x limit of it, Redis decides every admission', async () => {
    const { store } = synced({ name: 'exact', exactWithin: 0.2, processes: 1 })
    const decisions: SyncedDecision[] = []
    for (let i = 0; i < 110; i++) decisions.push(await store.consume(algorithm, 'k', 1, start))
    expect(decisions.filter((d) => d.allowed)).toHaveLength(100)
    expect(decisions.slice(0, 80).every((d) => d.source === undefined)).toBe(true)
    expect(decisions.slice(80, 100).every((d) => d.source === 'redis' && d.allowed)).toBe(true)
    expect(decisions[99]!.remaining).toBe(0)
    // Redis counts them all once the 80 local ones are sent.
    await store.sync()
    const raw = await client.getBuffer(store.store.keyOf(algorithm, 'k'))
    expect(raw?.readDoubleLE(8)).toBe(100)
  })

  it('a cost above the limit is refused with retryAfterMs Infinity, locally', async () => {
    const { store } = synced({ name: 'cost' })
    await store.consume(algorithm, 'k', 1, start)
    const refused = await store.consume(algorithm, 'k', 101, start)
    expect(refused).toMatchObject({ allowed: false, retryAfterMs: Number.POSITIVE_INFINITY })
    expect(refused.source).toBeUndefined() // decided locally
  })

  it('works under createLimiter, and consumeAll spends nothing when one policy refuses', async () => {
    const { store } = synced({ name: 'limiter' })
    const limiter = createLimiter({
      algorithm: fixedWindow({ limit: 3, window: '1m' }),
      store,
      clock: () => start,
    })
    const allowed = []
    for (let i = 0; i < 4; i++) allowed.push((await limiter.consume('user:1')).allowed)
    expect(allowed).toEqual([true, true, true, false])
    const a = fixedWindow({ limit: 5, window: '1m' })
    const b = slidingWindowCounter({ limit: 1, window: '1m' })
    await store.consume(b, 'all-b', 1, start)
    const both = await store.consumeAll(
      [
        { algorithm: a, key: 'all-a', cost: 1 },
        { algorithm: b, key: 'all-b', cost: 1 },
      ],
      start,
    )
    expect(both.map((d) => d.allowed)).toEqual([true, false])
    expect((await store.peek(a, 'all-a', 1, start)).remaining).toBe(5)
  })
})

describe('SyncedStore: Redis unreachable from the start', () => {
  it("offline: 'share' admits this process's share of the limit, 'limit' the whole limit by itself; every decision made locally, offline", async () => {
    const port = await freePort() // nothing listens there
    const down = new Redis({
      host: '127.0.0.1',
      port,
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    })
    down.on('error', () => {})
    const limit10 = fixedWindow({ limit: 10, window: '1m' })
    for (const [offline, admitted] of [
      ['share', 5],
      ['limit', 10],
    ] as const) {
      const store = new SyncedStore({
        store: bounded(new RedisStore({ client: down, prefix: `${prefix}:down` }), 200),
        clock: virtualClock(start).now,
        timers: manualTimers(),
        processes: 2,
        offline,
      })
      stores.push(store)
      const decisions = []
      for (let i = 0; i < 15; i++) decisions.push(await store.consume(limit10, 'k', 1, start))
      expect(decisions.filter((d) => d.allowed)).toHaveLength(admitted)
      expect(decisions.every((d) => d.source === 'offline')).toBe(true)
    }
    down.disconnect()
  })
})

describe('SyncedStore: algorithms it cannot count fail at creation', () => {
  it('createLimiter with a token bucket on a SyncedStore throws a RateLimitConfigError when created', () => {
    const { store } = synced({ name: 'creation' })
    expect(() => createLimiter({ algorithm: tokenBucket({ capacity: 5, refillRate: 1 }), store })).toThrow(
      RateLimitConfigError,
    )
    expect(() =>
      createLimiter({ algorithm: slidingWindowCounter({ limit: 5, window: '1s' }), store }),
    ).not.toThrow()
  })
})

describe('SyncedStore: a client without binary replies', () => {
  it('reads the same totals as text', async () => {
    // Only evalsha, eval and del: the RedisStore then asks for text replies.
    const textClient = {
      evalsha: (...args: [string, number, ...string[]]) => client.evalsha(...args),
      eval: (...args: [string, number, ...string[]]) => client.eval(...args),
      del: (key: string) => client.del(key),
    }
    const swc = slidingWindowCounter({ limit: 10, window: '1s' })
    const store = new SyncedStore({
      store: new RedisStore({ client: textClient, prefix: `${prefix}:text` }),
      timers: manualTimers(),
      processes: 2,
    })
    stores.push(store)
    for (let i = 0; i < 3; i++) await store.consume(swc, 'k', 1, start + 900)
    await store.consume(swc, 'k', 1, start + 1100) // the window rolls: 1 now, 3 before
    await store.sync()
    const raw = await client.getBuffer(store.store.keyOf(swc, 'k'))
    expect([raw?.readDoubleLE(0), raw?.readDoubleLE(8), raw?.readDoubleLE(16)]).toEqual([start + 1000, 1, 3])
    // Read back as text: 1 + 3 x 0.9 = 3.7 used, so 6 remain.
    await store.consume(swc, 'k', 0.5, start + 1100)
    await store.sync()
    expect((await store.peek(swc, 'k', 1, start + 1100)).remaining).toBe(5)
  })
})

describe('SyncedStore: memory', () => {
  it('keeps at most maxKeys keys; a forgotten key is read again when it comes back, its count intact', async () => {
    const { store } = synced({ name: 'max-keys', maxKeys: 10 })
    const algorithm = fixedWindow({ limit: 100, window: '1h' })
    for (let i = 0; i < 30; i++) {
      await store.consume(algorithm, `k${i}`, 1, start)
      if (i % 5 === 4) await store.sync() // keys with nothing left to send may be forgotten
    }
    expect(store.stats.keys).toBeLessThanOrEqual(10)
    await store.sync()
    const before = store.stats.waited
    expect((await store.peek(algorithm, 'k0', 1, start)).remaining).toBe(99)
    expect(store.stats.waited).toBe(before + 1) // k0 was forgotten, and read again
  })
})

describe('SyncedStore on a node-redis client', () => {
  it('syncs and reads totals as it does on ioredis', async () => {
    const opened = await sharedTestClient('node-redis')
    try {
      const make = () =>
        new SyncedStore({
          store: new RedisStore({ client: opened.client, prefix: `${prefix}:node-redis` }),
          timers: manualTimers(),
          processes: 2,
        })
      const [a, b] = [make(), make()]
      const algorithm = fixedWindow({ limit: 100, window: '1m' })
      for (let i = 0; i < 7; i++) await a.consume(algorithm, 'k', 1, start)
      await a.sync()
      expect((await b.consume(algorithm, 'k', 1, start)).remaining).toBe(92)
      await b.sync()
      await a.peek(algorithm, 'k', 1, start)
      await a.sync()
      expect((await a.peek(algorithm, 'k', 1, start)).remaining).toBe(92)
      await a.close()
      await b.close()
    } finally {
      await opened.close()
    }
  })
})

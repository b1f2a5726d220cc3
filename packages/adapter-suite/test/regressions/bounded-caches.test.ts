// Regression: with `planCache: { maxKeys: 100 }` (or `false`), 1,500 distinct 15 kB API keys that `planOf`
// accepts added 22.9 MB to the heap: the handler kept a second map of raw API keys (up to 10,000) beside the
// plan cache. Every cache the request path keeps now has a bound on entries and on bytes that holds whatever a
// client sends (docs/memory-store.md#every-cache-and-its-bound); each probe here builds the real thing, feeds
// it hostile requests in a process of its own (`--expose-gc`), and checks what they leave on the heap against
// the sum of the documented bounds of the caches they reach.
import { type HeapProbe, heapProbe } from '@floodgate/test-harness'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { drivers } from '../../src/index.js'
import { FED, STORE_KEYS, WARM_HOSTILE } from '../fixtures/hostile-sizes.js'

/** The documented bounds (docs/memory-store.md#every-cache-and-its-bound), in bytes per entry and entries. */
const BOUND = {
  /** An answer of the plan cache: under 1 KB (a key longer than 128 characters is kept as its digest). */
  planEntry: 1024,
  planCacheKeys: 10_000,
  /** An address seen lately (at most 64 characters, else never kept), with what it gave. */
  addressEntry: 300,
  /** A store key built for an address, per policy keyed by `'ip'` alone. */
  addressKeyEntry: 200,
  keptAddresses: 4096,
  /** A MemoryStore key: about 90 bytes and its key string, whose parts are at most 200 characters or a hash. */
  storeEntry: 600,
  /** The codes warned about once, by the process and by a limiter without `onError`: 64 of 64 characters. */
  warnedCodes: 2 * 64 * 200,
}

/**
 * What V8 keeps of its own between the two readings: the code it compiles and optimises while the hostile
 * requests run, none of it a cache of Floodgate's. Heap snapshots taken before and after: 70 to 210 KB for the
 * handler alone, about 450 KB for an Express app (the framework's request path, HTTP parsing), every byte of
 * it code, deoptimisation data, relocation info and feedback. A fresh-clone run once measured 400 KB for the
 * handler with `planCache: false`, hence 512 KB: still some 45 times below what one unbounded map of these keys
 * kept (22.9 MB).
 */
const COMPILED_CODE = { handler: 512 * 1024, app: 640 * 1024 }
/** The probe's MemoryStore: `STORE_KEYS` keys in each of a scenario's policies. */
const store = (policies: number) => policies * STORE_KEYS * BOUND.storeEntry
/** Entries a cache of `max` gains at most from the hostile requests (the warm-up's included). */
const gained = (max: number) => Math.min(max, FED + WARM_HOSTILE)

const EXTERNAL = ['express', 'fastify', 'koa', '@koa/router', 'supertest', 'ioredis']
const SLOW = 120_000 // one probe is a few seconds of CPU; on a machine shared by many processes, more

let probe: HeapProbe
beforeAll(async () => {
  probe = await heapProbe({
    entry: new URL('../fixtures/hostile-requests.ts', import.meta.url),
    external: EXTERNAL,
  })
}, SLOW)
afterAll(() => probe?.remove())

describe('1,500 distinct 15 kB API keys that planOf accepts', () => {
  it.each([
    ['{ maxKeys: 100 }', '100', 100],
    ['false', 'false', 0],
    ['the default, { maxKeys: 10000 }', '', BOUND.planCacheKeys],
  ] as const)(
    'planCache %s keeps at most maxKeys answers of under 1 KB each',
    async (_name, arg, maxKeys) => {
      const { retained } = await probe.measure('handler', 'plan-keys', arg)
      expect(retained).toBeLessThan(gained(maxKeys) * BOUND.planEntry + store(2) + COMPILED_CODE.handler)
    },
    SLOW,
  )
})

describe('the handler, fed hostile requests', () => {
  it(
    '1,500 paths of 15 kB, to a route and to none, keyed per endpoint and by a function of the path: only the store grows, to its bound',
    async () => {
      const { retained } = await probe.measure('handler', 'paths')
      expect(retained).toBeLessThan(store(2) + COMPILED_CODE.handler)
    },
    SLOW,
  )

  it(
    '750 new client addresses and 750 X-Forwarded-For values of 15 kB: at most 4,096 addresses kept, none of the long values',
    async () => {
      const { retained } = await probe.measure('handler', 'addresses')
      const kept = gained(BOUND.keptAddresses) / 2 // the other half is no address, never kept
      expect(retained).toBeLessThan(
        kept * (BOUND.addressEntry + BOUND.addressKeyEntry) + store(1) + COMPILED_CODE.handler,
      )
    },
    SLOW,
  )

  it(
    '1,500 user ids and key-function values of 15 kB: each kept as a hash part, by the store alone',
    async () => {
      const { retained } = await probe.measure('handler', 'key-values')
      expect(retained).toBeLessThan(store(2) + COMPILED_CODE.handler)
    },
    SLOW,
  )

  it(
    '1,500 user ids and key-function values of 15 kB on policies with wildcard overrides: none kept by the wildcard cache',
    async () => {
      const { retained } = await probe.measure('handler', 'override-ids')
      // Two policies, each with its overrides' algorithm beside its own: four tables in the store.
      expect(retained).toBeLessThan(store(4) + COMPILED_CODE.handler)
    },
    SLOW,
  )

  it(
    'a store failing with 1,500 distinct 15 kB error codes and no onError: at most 64 codes of 64 characters remembered',
    async () => {
      const { retained } = await probe.measure('handler', 'warning-codes')
      expect(retained).toBeLessThan(BOUND.warnedCodes + COMPILED_CODE.handler)
    },
    SLOW,
  )
})

describe.each(drivers)('an app on $name, fed hostile requests over HTTP', (driver) => {
  it(
    '1,500 requests, each with a new 15 kB API key and a 15 kB path, from a new address or with a 15 kB X-Forwarded-For: every cache within its bound',
    async () => {
      const { retained } = await probe.measure(driver.name, 'everything', '100')
      const kept = gained(BOUND.keptAddresses) / 2
      const caches = 100 * BOUND.planEntry + kept * (BOUND.addressEntry + BOUND.addressKeyEntry) + store(3)
      expect(retained).toBeLessThan(caches + COMPILED_CODE.app)
    },
    SLOW,
  )
})

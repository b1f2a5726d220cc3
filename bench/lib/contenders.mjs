/**
 * The in-memory stores under test, each behind the same shape: `create({ limit, windowMs, ... })` resolves
 * to an async `decide(key) => boolean` (admitted or not), with `decide.size()` the number of keys it holds. Each adapter decides the way the peer's own
 * middleware does with its store (the expression is quoted in `how`), and nothing more: no headers, no
 * request objects. Peers are loaded only when asked for, so a child process holds one store's code only.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * Floodgate's algorithms, built from one `limit per windowMs` so every store enforces the same quota. The
 * buckets take `refill` units per `windowMs` (default: `limit`); the throughput runs pass a slow refill with a
 * huge `limit`, else a bucket refilled at 1e9 per minute is full again microseconds after each hit, its key
 * expires and is re-created on every round-robin visit (the window stores keep a key for its window).
 */
export const floodgateAlgorithms = {
  slidingWindowCounter: (fg, limit, windowMs) => fg.slidingWindowCounter({ limit, window: windowMs }),
  fixedWindow: (fg, limit, windowMs) => fg.fixedWindow({ limit, window: windowMs }),
  slidingWindowLog: (fg, limit, windowMs) => fg.slidingWindowLog({ limit, window: windowMs }),
  tokenBucket: (fg, limit, windowMs, refill = limit) =>
    fg.tokenBucket({ capacity: limit, refillRate: refill, interval: windowMs }),
  leakyBucketPolice: (fg, limit, windowMs, refill = limit) =>
    fg.leakyBucket({ capacity: limit, leakRate: refill, interval: windowMs, mode: 'police' }),
  leakyBucketShape: (fg, limit, windowMs, refill = limit) =>
    fg.leakyBucket({ capacity: limit, leakRate: refill, interval: windowMs, mode: 'shape' }),
  gcra: (fg, limit, windowMs, refill = limit) => fg.gcra({ rate: refill, period: windowMs, burst: limit }),
}

/** How each algorithm is built, as the results show it. */
const shown = {
  slidingWindowCounter: 'slidingWindowCounter({ limit, window })',
  fixedWindow: 'fixedWindow({ limit, window })',
  slidingWindowLog: 'slidingWindowLog({ limit, window })',
  tokenBucket: 'tokenBucket({ capacity: limit, refillRate, interval: window })',
  leakyBucketPolice: "leakyBucket({ capacity: limit, leakRate, interval: window, mode: 'police' })",
  leakyBucketShape: "leakyBucket({ capacity: limit, leakRate, interval: window, mode: 'shape' })",
  gcra: 'gcra({ rate, period: window, burst: limit })',
}

function floodgate(algorithm, label, { sync = false } = {}) {
  const call = sync ? 'limiter.consumeSync(key).allowed (no await)' : '(await limiter.consume(key)).allowed'
  return {
    label,
    kind: 'floodgate',
    algorithm,
    how: `${call}, limiter = createLimiter({ algorithm: ${shown[algorithm]}, store: new MemoryStore({ maxKeys }) })`,
    async create({ limit, windowMs, refill, maxKeys = 1_000_000 }) {
      const fg = await import(process.env.FLOODGATE_CORE ?? '@floodgate/core')
      const store = new fg.MemoryStore({ maxKeys })
      const limiter = fg.createLimiter({
        algorithm: floodgateAlgorithms[algorithm](fg, limit, windowMs, refill),
        store,
      })
      const decide = sync
        ? Object.assign((key) => limiter.consumeSync(key).allowed, { sync: true })
        : async (key) => (await limiter.consume(key)).allowed
      decide.size = () => store.size
      return decide
    },
  }
}

export const contenders = {
  map: {
    label: 'bare Map counter (baseline)',
    kind: 'baseline',
    how: 'async (key) => { const n = (map.get(key) ?? 0) + 1; map.set(key, n); return n <= limit } (no window, no expiry, no bound)',
    async create({ limit }) {
      const map = new Map()
      const decide = async (key) => {
        const n = (map.get(key) ?? 0) + 1
        map.set(key, n)
        return n <= limit
      }
      decide.size = () => map.size
      return decide
    },
  },
  'map-sync': {
    label: 'bare Map counter, no await (baseline)',
    kind: 'baseline',
    how: '(key) => { const n = (map.get(key) ?? 0) + 1; map.set(key, n); return n <= limit }, called without await',
    async create({ limit }) {
      const map = new Map()
      const decide = (key) => {
        const n = (map.get(key) ?? 0) + 1
        map.set(key, n)
        return n <= limit
      }
      decide.sync = true
      decide.size = () => map.size
      return decide
    },
  },
  'floodgate-swc': floodgate('slidingWindowCounter', 'Floodgate MemoryStore, slidingWindowCounter (default)'),
  'floodgate-swc-sync': floodgate(
    'slidingWindowCounter',
    'Floodgate MemoryStore, slidingWindowCounter, consumeSync (no await)',
    { sync: true },
  ),
  'floodgate-fw': floodgate('fixedWindow', 'Floodgate MemoryStore, fixedWindow'),
  'floodgate-tb': floodgate('tokenBucket', 'Floodgate MemoryStore, tokenBucket'),
  'floodgate-gcra': floodgate('gcra', 'Floodgate MemoryStore, gcra'),
  'floodgate-swl': floodgate('slidingWindowLog', 'Floodgate MemoryStore, slidingWindowLog'),
  'floodgate-lb': floodgate('leakyBucketPolice', 'Floodgate MemoryStore, leakyBucket (police)'),
  'floodgate-lb-shape': floodgate('leakyBucketShape', 'Floodgate MemoryStore, leakyBucket (shape)'),
  rlf: {
    label: 'rate-limiter-flexible RateLimiterMemory',
    kind: 'peer',
    how: 'await rl.consume(key) resolves (admitted) or rejects with a RateLimiterRes (refused)',
    async create({ limit, windowMs }) {
      const { RateLimiterMemory } = require('rate-limiter-flexible')
      const rl = new RateLimiterMemory({ points: limit, duration: windowMs / 1000 })
      const decide = async (key) => {
        try {
          await rl.consume(key)
          return true
        } catch (refused) {
          if (refused instanceof Error) throw refused
          return false
        }
      }
      decide.size = () => rl._memoryStorage._storage.size
      return decide
    },
  },
  erl: {
    label: 'express-rate-limit MemoryStore',
    kind: 'peer',
    how: '(await store.increment(key)).totalHits <= limit, after store.init({ windowMs }) (as its middleware reads it)',
    async create({ limit, windowMs }) {
      const { MemoryStore } = await import('express-rate-limit')
      const store = new MemoryStore()
      store.init({ windowMs })
      const decide = async (key) => (await store.increment(key)).totalHits <= limit
      decide.size = () => store.current.size + store.previous.size
      return decide
    },
  },
  fastify: {
    label: '@fastify/rate-limit LocalStore',
    kind: 'peer',
    how: 'res = await new Promise((ok, ko) => store.incr(key, (err, r) => err ? ko(err) : ok(r), timeWindow, max)); res.current <= max (as its plugin does); LRU cache sized to the keys used',
    async create({ limit, windowMs, maxKeys = 1_000_000 }) {
      const LocalStore = require('@fastify/rate-limit/store/LocalStore.js')
      // (continueExceeding, exponentialBackoff, cache): the plugin's default cache is 5000 keys, too few
      // for 100k round-robin keys (every call would miss); sized like Floodgate's maxKeys instead.
      const store = new LocalStore(false, false, maxKeys)
      const decide = async (key) => {
        const res = await new Promise((resolve, reject) => {
          store.incr(key, (err, r) => (err ? reject(err) : resolve(r)), windowMs, limit)
        })
        return res.current <= limit
      }
      decide.size = () => store.lru.size
      return decide
    },
  },
  koa: {
    label: 'koa-ratelimit memory driver',
    kind: 'peer',
    how: 'l = await new MemoryLimiter({ id: key, db, max, duration }).get(); l.remaining > 0 (as its middleware does, one limiter object per request)',
    async create({ limit, windowMs }) {
      const MemoryLimiter = require('koa-ratelimit/limiter/memory.js')
      const db = new Map()
      const decide = async (key) => {
        const l = await new MemoryLimiter({ id: key, db, max: limit, duration: windowMs }).get()
        return l.remaining > 0
      }
      decide.size = () => db.size
      return decide
    },
  },
}

/** The same key strings for every store: IPv4-looking addresses, unique for i < 2^24. */
export const keyOf = (i) => `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`

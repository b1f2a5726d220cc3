// A RedisStore keeps two caches beside Redis: the Redis keys it built (4,096 per algorithm) and, when asked,
// a block cache of refused keys (`maxKeys`). Both keep no key over 256 characters, so each entry is bounded in
// bytes whatever keys a caller sends (docs/memory-store.md#every-cache-and-its-bound). Measured in a process of
// its own with --expose-gc (the test harness's heapProbe), on the shared Redis.
import { type HeapProbe, heapProbe } from '@floodgate/test-harness'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BLOCK_CACHE_KEYS, FED, WARM } from './fixtures/hostile-key-sizes.js'
import { sharedRedisForFile } from './helpers.js'

/** The documented bounds, in bytes per entry. */
const BOUND = {
  /** A block-cache entry: its Redis key (at most 256 characters), the refusal and the times. */
  blockEntry: 1024,
  /** A built Redis key and the store key it was built from (each at most 256 characters and a suffix). */
  redisKeyEntry: 1200,
  keptRedisKeys: 4096,
}
/**
 * What V8 keeps of its own between the two readings (the code it compiles while the keys run) and what the
 * client keeps (its buffers), none of it a cache of the store's: 230 to 320 KB measured with keys neither cache
 * keeps. (Before the caches refused long keys, the built keys alone held about 50 MB here.)
 */
const ALLOWANCE = 512 * 1024
const SLOW = 120_000

const shared = sharedRedisForFile('bounded-caches')
let probe: HeapProbe
beforeAll(async () => {
  probe = await heapProbe({
    entry: new URL('./fixtures/hostile-keys.ts', import.meta.url),
    external: ['ioredis', 'redis', 'zod'],
  })
}, SLOW)
afterAll(() => probe?.remove())

describe('a RedisStore with blockCache { maxKeys: 100 }, fed 1,500 distinct refused keys of 15 kB', () => {
  it(
    'given to the store as they are: neither cache keeps one (each over 256 characters)',
    async () => {
      const { retained } = await probe.measure(`${shared.prefix}:direct`, 'direct')
      expect(retained).toBeLessThan(ALLOWANCE)
    },
    SLOW,
  )

  it(
    'through createLimiter (each key hashed to a short one): at most 100 block-cache entries and 4,096 built keys',
    async () => {
      const { retained } = await probe.measure(`${shared.prefix}:limiter`, 'limiter')
      const built = Math.min(BOUND.keptRedisKeys, FED + WARM)
      expect(retained).toBeLessThan(
        BLOCK_CACHE_KEYS * BOUND.blockEntry + built * BOUND.redisKeyEntry + ALLOWANCE,
      )
    },
    SLOW,
  )
})

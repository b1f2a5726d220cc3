import { createLimiter, fixedWindow, MemoryStore, RateLimitConfigError } from '@floodgate/core'
import { Cluster, Redis } from 'ioredis'
import { createClient, createClientPool, createCluster, createSentinel } from 'redis'
import { describe, expect, it } from 'vitest'
import { RedisStore, type RedisStoreOptions } from '../src/index.js'

const client = new Redis({ lazyConnect: true })

const configError = (options: unknown) => {
  try {
    new RedisStore(options as RedisStoreOptions)
  } catch (error) {
    return error as RateLimitConfigError
  }
  throw new Error('expected a RateLimitConfigError')
}

describe('RedisStore options', () => {
  it('are validated when the store is created, naming the option, the value and what is allowed', () => {
    expect(configError({})).toBeInstanceOf(RateLimitConfigError)
    expect(configError({}).message).toBe(
      'Expected `RedisStore.client` to be an ioredis client (new Redis(url), new Redis.Cluster(nodes)) or a node-redis client (createClient(), createCluster()), got undefined (undefined)',
    )
    expect(configError({ client, cooldownMs: -5 }).message).toBe(
      'Expected `RedisStore.cooldownMs` to be a number of ms > 0, got -5 (number)',
    )
    expect(configError({ client, prefix: 'a{b' }).option).toBe('RedisStore.prefix')
    expect(configError({ client, blockCache: { maxKeys: 0 } }).option).toBe('RedisStore.blockCache.maxKeys')
    expect(configError({ client, timeout: 5 }).code).toBe('ERR_FLOODGATE_UNKNOWN_OPTION')
  })

  it("refuses failMode, fallback and timeoutMs at creation, saying they are the limiter's options now", () => {
    const moved = [
      [
        { failMode: 'closed' },
        'RedisStore.failMode',
        "the limiter's `failMode` (rateLimit({ store, failMode })",
      ],
      [
        { failMode: 'fallback', fallback: new MemoryStore() },
        'RedisStore.failMode',
        'createLimiter({ store, failMode })',
      ],
      [{ fallback: new MemoryStore() }, 'RedisStore.fallback', '`failMode: { fallback: store }`'],
      [{ timeoutMs: 100 }, 'RedisStore.timeoutMs', "the limiter's `storeTimeout`"],
    ] as const
    for (const [options, option, where] of moved) {
      const error = configError({ client, ...options })
      expect(error).toBeInstanceOf(RateLimitConfigError)
      expect(error.code).toBe('ERR_FLOODGATE_OPTION_MOVED')
      expect(error.option).toBe(option)
      expect(error.message).toContain(where)
    }
  })

  it('batch: true, false or { maxSize } (a whole number >= 1), said in the error', () => {
    for (const batch of [true, false, { maxSize: 1 }, { maxSize: 512 }]) {
      expect(new RedisStore({ client, batch })).toBeInstanceOf(RedisStore)
    }
    for (const batch of ['yes', 0, null, {}, { maxSize: 0 }, { maxSize: 2.5 }, { maxSize: 8, wait: 1 }]) {
      const error = configError({ client, batch })
      expect(error).toBeInstanceOf(RateLimitConfigError)
      expect(error.option).toMatch(/^RedisStore\.batch/)
      expect(error.message).toMatch(/true, false or \{ maxSize \}|a whole number >= 1|a known option/)
    }
    expect(configError({ client, batch: 'yes' }).message).toBe(
      "Expected `RedisStore.batch` to be true, false or { maxSize } (maxSize a whole number >= 1), got 'yes' (string)",
    )
    expect(configError({ client, batch: { maxSize: 0 } }).message).toBe(
      'Expected `RedisStore.batch.maxSize` to be a whole number >= 1, got 0 (number)',
    )
  })

  it('has defaults: prefix floodgate, a bound of 500 ms (the default storeTimeout) until a limiter sets it; the shortest of several', () => {
    const store = new RedisStore({ client })
    expect([store.prefix, store.timeoutMs]).toEqual(['floodgate', 500])
    createLimiter({ store, algorithm: fixedWindow({ limit: 1, window: '1s' }), storeTimeout: '2s' })
    expect(store.timeoutMs).toBe(2000)
    createLimiter({ store, algorithm: fixedWindow({ limit: 1, window: '1s' }), storeTimeout: '100ms' })
    expect(store.timeoutMs).toBe(100)
    createLimiter({ store, algorithm: fixedWindow({ limit: 1, window: '1s' }) })
    expect(store.timeoutMs).toBe(100)
  })

  it('takes a standalone client or a Cluster, and never sniffs class names', () => {
    const cluster = new Cluster([{ host: '127.0.0.1', port: 1 }], { lazyConnect: true })
    expect(new RedisStore({ client: cluster }).client).toBe(cluster)
    // Anything with the few methods used will do (a wrapper, a mock).
    const narrow = {
      evalsha: client.evalsha.bind(client),
      eval: client.eval.bind(client),
      del: client.del.bind(client),
    }
    expect(new RedisStore({ client: narrow }).client).toBe(narrow)
    cluster.disconnect()
  })

  it('takes a node-redis client or Cluster, connected or not; refuses a pool, a Sentinel and look-alikes', () => {
    const single = createClient({ socket: { port: 1 } })
    const nodes = createCluster({ rootNodes: [{ socket: { port: 1 } }] })
    for (const client of [single, single.withTypeMapping({}), nodes]) {
      expect(new RedisStore({ client }).client).toBe(client)
    }
    const refused = [
      createClientPool({ socket: { port: 1 } }), // no isReady: it is not one connection's state
      createSentinel({ name: 'm', sentinelRootNodes: [{ host: '127.0.0.1', port: 1 }] }), // its own sendCommand
      { sendCommand: () => Promise.resolve(), isReady: 'yes', isOpen: true },
      { evalsha: () => Promise.resolve(), eval: () => Promise.resolve() }, // no del
      'redis://127.0.0.1:6379',
    ]
    for (const client of refused) {
      const error = configError({ client })
      expect(error.option).toBe('RedisStore.client')
      expect(error.message).toContain('or a node-redis client (createClient(), createCluster())')
    }
  })
})

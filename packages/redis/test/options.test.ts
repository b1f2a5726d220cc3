import { MemoryStore, RateLimitConfigError } from '@floodgate/core'
import { Cluster, Redis } from 'ioredis'
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
      'Expected `RedisStore.client` to be an ioredis client (new Redis(url) or new Redis.Cluster(nodes)), got undefined (undefined)',
    )
    expect(configError({ client, timeoutMs: -5 }).message).toBe(
      'Expected `RedisStore.timeoutMs` to be a number of ms > 0, got -5 (number)',
    )
    expect(configError({ client, failMode: 'maybe' }).message).toContain("'open', 'closed' or 'fallback'")
    expect(configError({ client, prefix: 'a{b' }).option).toBe('RedisStore.prefix')
    expect(configError({ client, blockCache: { maxKeys: 0 } }).option).toBe('RedisStore.blockCache.maxKeys')
    expect(configError({ client, timeout: 5 }).code).toBe('ERR_FLOODGATE_UNKNOWN_OPTION')
  })

  it('has defaults: prefix floodgate, 500 ms, fail open; fallback gets a MemoryStore', () => {
    const store = new RedisStore({ client })
    expect([store.prefix, store.timeoutMs, store.failMode, store.fallback]).toEqual([
      'floodgate',
      500,
      'open',
      undefined,
    ])
    expect(new RedisStore({ client, failMode: 'fallback' }).fallback).toBeInstanceOf(MemoryStore)
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
})

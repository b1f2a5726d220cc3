import { fixedWindow, tokenBucket } from '@floodgate/core'
import { partitionOf, storeKey } from '@floodgate/core/internal'
import { describe, expect, it } from 'vitest'
import { keySlot, redisKey } from '../src/index.js'

const tagOf = (full: string) => full.slice(full.indexOf('{') + 1, full.indexOf('}'))

describe('Redis keys', () => {
  it("core's keys are used as they are: prefix, the key with its caller in braces, the algorithm id", () => {
    expect(redisKey('rl', 'api:ip|{ip:1.2.3.4}', 'gcra:100,1000,10')).toBe(
      'rl:api:ip|{ip:1.2.3.4}:gcra:100,1000,10',
    )
    expect(redisKey('rl', 'user|{user:7}|endpoint:GET /x', 'fw:5,1000')).toBe(
      'rl:user|{user:7}|endpoint:GET /x:fw:5,1000',
    )
  })

  it('one caller, one slot: every policy of a caller hashes to the slot of the caller alone', () => {
    const caller = partitionOf('user:alice')
    const user = redisKey('rl', storeKey('user|', caller), 'swc:10,3600000')
    const burst = redisKey('rl', storeKey('burst|', caller), tokenBucket({ capacity: 3, refillRate: 1 }).id)
    const perEndpoint = redisKey('rl', storeKey('export|', caller, '|endpoint:GET /export'), 'fw:5,60000')
    expect(new Set([user, burst, perEndpoint].map(keySlot))).toEqual(new Set([keySlot('user:alice')]))
  })

  it('a key from elsewhere (a store used directly) is encoded and put in braces: it cannot pick a slot', () => {
    expect(redisKey('rl', 'user:1', 'fw:1,1000')).toBe('rl:{user:1}:fw:1,1000')
    // A limiter with no prefix passes a key that needs no encoding as it is: the same Redis key as `{user:1}`
    expect(redisKey('rl', storeKey('', partitionOf('user:1')), 'fw:1,1000')).toBe('rl:{user:1}:fw:1,1000')
    for (const key of ['a}b', '}{', '{', '}', '{}', 'a{}b']) {
      const full = redisKey('rl', key, 'fw:1,1000')
      expect(full.indexOf('}'), key).toBe(full.lastIndexOf('}'))
      expect(tagOf(full)).toBe(partitionOf(key))
    }
  })

  it('keys are lossless in UTF-8: lone surrogates never merge with U+FFFD or each other', () => {
    const keys = ['u\ud800', 'u\udbff', 'u\udc00', 'u\ufffd', 'x{u\ud800}', 'x{u\udc00}']
    const redis = keys.map((k) => redisKey('rl', k, 'fw:1,1000'))
    const bytes = redis.map((k) => Buffer.from(k).toString('hex'))
    expect(new Set(bytes).size).toBe(keys.length)
  })

  it('very long keys are hashed, and cannot collide with short ones', () => {
    const long = 'x'.repeat(5000)
    const tag = tagOf(redisKey('rl', long, 'fw:1,1000'))
    expect(tag).toMatch(/^%H[\w-]{43}$/)
    expect(tagOf(redisKey('rl', `${long}y`, 'fw:1,1000'))).not.toBe(tag)
    expect(tagOf(redisKey('rl', tag, 'fw:1,1000'))).not.toBe(tag) // a short key spelled like a hash: % is escaped
  })

  it('computes Redis Cluster slots (CRC16/XMODEM, hash tags)', () => {
    // Values from the Redis Cluster specification and `CLUSTER KEYSLOT`.
    expect(keySlot('123456789')).toBe(12739)
    expect(keySlot('foo')).toBe(12182)
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'))
    expect(keySlot('foo{}{bar}')).toBe(keySlot('foo{}{bar}'))
    expect(keySlot('foo{{bar}}zap')).toBe(keySlot('{bar'))
    expect(keySlot(redisKey('rl', 'k', fixedWindow({ limit: 1, window: 1000 }).id))).toBe(keySlot('k'))
  })
})

describe('keys of equal and different algorithms', () => {
  it('equal algorithms (same kind and parameters) share a key; different parameters do not', async () => {
    const { RedisStore } = await import('../src/index.js')
    const { Redis } = await import('ioredis')
    const store = new RedisStore({ client: new Redis({ lazyConnect: true }) })
    const a = fixedWindow({ limit: 5, window: '1m' })
    expect(store.keyOf(a, 'k')).toBe(store.keyOf(fixedWindow({ limit: 5, window: 60_000 }), 'k'))
    expect(store.keyOf(a, 'k')).not.toBe(store.keyOf(fixedWindow({ limit: 6, window: '1m' }), 'k'))
    expect(store.keyOf(a, 'k')).toBe('floodgate:{k}:fw:5,60000')
  })
})

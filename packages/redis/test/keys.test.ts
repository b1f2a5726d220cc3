import { fixedWindow } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { keySlot, keyTag, MAX_TAG_LENGTH, redisKey } from '../src/index.js'

describe('keys', () => {
  it('is prefix:{key}:algorithm id', () => {
    expect(redisKey('rl', 'user:1', 'gcra:100,1000,10')).toBe('rl:{user:1}:gcra:100,1000,10')
  })

  it('a key cannot choose its slot or leave its tag', () => {
    for (const key of ['a}b', '{a}', '}{', '{', '}', 'x{y}z']) {
      const full = redisKey('rl', key, 'fw:1,1000')
      const tag = full.slice(full.indexOf('{') + 1, full.indexOf('}'))
      expect(full.indexOf('}')).toBe(full.lastIndexOf('}'))
      expect(tag).toBe(keyTag(key))
      expect(keySlot(full)).toBe(keySlot(`{${keyTag(key)}}`))
    }
  })

  it('escaping is injective', () => {
    const keys = ['%', '%25', '{', '%7B', '}', '%7D', 'a%7Bb', 'a{b', '%H', `%H${'x'.repeat(43)}`, '']
    const tags = keys.map(keyTag)
    expect(new Set(tags).size).toBe(keys.length)
  })

  it('very long keys are hashed, and cannot collide with short ones', () => {
    const long = 'x'.repeat(5000)
    const tag = keyTag(long)
    expect(tag.length).toBeLessThan(50)
    expect(tag.startsWith('%H')).toBe(true)
    expect(keyTag(`${long}y`)).not.toBe(tag)
    expect(keyTag('{'.repeat(MAX_TAG_LENGTH)).startsWith('%H')).toBe(true) // escaped length counts
    expect(keyTag(tag)).not.toBe(tag) // a short key spelled like a hash is escaped (% -> %25)
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

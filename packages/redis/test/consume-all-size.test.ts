import { fixedWindow } from '@floodgate/core'
import type { Redis } from 'ioredis'
import { describe, expect, it } from 'vitest'
import { RedisStore, type RedisStoreOptions } from '../src/index.js'
import { type ClientName, sharedRedisForFile, sharedTestClient } from './helpers.js'

// The consume-all script answers every item's decision in one string: a request of many items (a caller's
// own use of `consumeAll`; nothing in core bounds the count) is decided by Redis, not by the fail mode, on
// every client. Lua 5.1 returns at most about 8,000 values from one `unpack`, so 10,000 items pass that limit.
const ITEMS = 10_000
const algorithm = fixedWindow({ limit: 2, window: '1m' })
// One minute for both calls: on the wall clock, the window could turn between them (each takes seconds).
const NOW = Date.UTC(2026, 0, 1, 12, 0, 30)

const narrow = (client: Redis): RedisStoreOptions['client'] => ({
  evalsha: client.evalsha.bind(client),
  eval: client.eval.bind(client),
  del: client.del.bind(client),
})

const cases: [string, ClientName, boolean][] = [
  ['ioredis, binary replies', 'ioredis', false],
  ['node-redis, binary replies', 'node-redis', false],
  ['a narrow client, text replies', 'ioredis', true],
]

describe('RedisStore.consumeAll on many items', () => {
  const shared = sharedRedisForFile('consume-all-size')

  it.each(cases)(
    '%s: 10,000 items on one slot are all decided by the script',
    async (_, name, text) => {
      const opened = await sharedTestClient(name)
      try {
        const errors: unknown[] = []
        const store = new RedisStore({
          client: text ? narrow(opened.client as Redis) : opened.client,
          prefix: `${shared.prefix}:${name}:${text}`,
          onError: (error) => errors.push(error),
        })
        store.answerWithin(10_000)
        const items = Array.from({ length: ITEMS }, (_, i) => ({ algorithm, key: `{one}:${i}`, cost: 1 }))
        const first = await store.consumeAll(items, NOW)
        expect(errors).toEqual([])
        expect(first).toHaveLength(ITEMS)
        expect(first.every((d) => d.allowed && (d as { source?: string }).source === 'redis')).toBe(true)
        expect(first.every((d) => d.remaining === 1)).toBe(true)
        // One more item that refuses: nothing is consumed, and every item is answered, one decision each.
        const last = { algorithm: fixedWindow({ limit: 1, window: '1m' }), key: '{one}:last', cost: 2 }
        const refused = await store.consumeAll([...items, last], NOW)
        expect(errors).toEqual([])
        expect(refused).toHaveLength(ITEMS + 1)
        expect(refused[ITEMS]!.allowed).toBe(false)
        expect(refused.slice(0, ITEMS).every((d) => d.remaining === 1)).toBe(true)
      } finally {
        await opened.close()
      }
    },
    60_000,
  )
})

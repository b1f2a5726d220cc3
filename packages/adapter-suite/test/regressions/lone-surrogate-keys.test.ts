// Regression: "u\ud800", "u\udbff", "u\udc00" and "u\ufffd" were one bucket on Redis (UTF-8 turns a lone
// surrogate into U+FFFD) and four in memory. Keys are now encoded losslessly (a lone surrogate as %uD800),
// the same on every store.
import { MemoryStore, type Store } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps, redisStore, statusesOf } from '../../src/index.js'

const ids: Record<string, string> = { a: 'u\ud800', b: 'u\udbff', c: 'u\udc00', d: 'u\ufffd', e: 'u%uD800' }

describe.each(drivers)('$name', (driver) => {
  const open = openApps()
  const redis = redisStore(`surrogates-${driver.name}`)

  it.each([
    ['memory', async () => new MemoryStore()],
    ['redis', () => redis.create()],
  ] as const)('on %s: five ids, five buckets', async (name, create) => {
    const store: Store = await create()
    try {
      const a = open(
        await driver.createApp({
          options: {
            limit: 1,
            window: '1m',
            store,
            prefix: `surrogates-${process.pid}-${Date.now()}`,
            key: 'user',
            user: (req: { headers: Record<string, string | undefined> }) => ids[req.headers['x-id'] ?? ''],
          },
        }),
      )
      for (const id of Object.keys(ids)) {
        expect(await statusesOf(a, 2, { headers: { 'x-id': id } }), id).toEqual([200, 429])
      }
    } finally {
      if (name === 'redis') await redis.destroy!(store)
    }
  })
})

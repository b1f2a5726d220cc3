// Regression: keys over 200 characters became `#` + SHA-256, but a short key starting with `#` was not
// escaped, so three requests with the hash of a long URL key as their key used up that key's bucket (on
// memory and on Redis). Hashed parts now start with `%H`, which an escaped part never does.
import { MemoryStore, type Store } from '@floodgate/core'
import { sha256Text } from '@floodgate/core/internal'
import { describe, expect, it } from 'vitest'
import { drivers, openApps, redisStore, statusesOf } from '../../src/index.js'

const long = `https://example.com/${'a'.repeat(300)}`
const forgeries = [
  `#${sha256Text(long)}`,
  `%H${sha256Text(long)}`,
  `%H${sha256Text(encodeURIComponent(long))}`,
]

describe.each(drivers)('$name', (driver) => {
  const open = openApps()
  const redis = redisStore(`forged-${driver.name}`)

  it.each([
    ['memory', async () => new MemoryStore()],
    ['redis', () => redis.create()],
  ] as const)(
    'on %s: a short key spelled like a hash is not the long key’s bucket',
    async (_name, create) => {
      const store: Store = await create()
      try {
        const a = open(
          await driver.createApp({
            options: {
              limit: 3,
              window: '1m',
              store,
              prefix: `forged-${process.pid}-${Date.now()}`,
              key: (req: { headers: Record<string, string | undefined> }) => req.headers['x-key'],
            },
          }),
        )
        for (const forged of forgeries) {
          expect(await statusesOf(a, 3, { headers: { 'x-key': forged } })).toEqual([200, 200, 200])
        }
        expect(await statusesOf(a, 4, { headers: { 'x-key': long } })).toEqual([200, 200, 200, 429])
      } finally {
        if (_name === 'redis') await redis.destroy!(store)
      }
    },
  )
})

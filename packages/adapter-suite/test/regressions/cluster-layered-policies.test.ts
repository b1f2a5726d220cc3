// Regression: on a Redis Cluster, one caller's layered policies sat on different slots (the hash tag held
// the policy name and algorithm id), so every layered decision took consume-then-refund. With an IP limit of
// 10 and a user limit of 2, user x sending 30 concurrent requests left user y, behind the same IP, with 0
// of its 2 on a Cluster (2 on standalone Redis): x's refused requests held the IP's quota for a moment.
// The tag is now the caller alone, so one caller's policies are one script; policies of different callers
// are decided narrowest first, so a request the user policy refuses never touches the IP's quota.
import { fixedWindow, type Store, tokenBucket } from '@floodgate/core'
import { RedisStore } from '@floodgate/redis'
import { describe, expect, it } from 'vitest'
import { clusterForFile, drivers, fwd, openApps, redisStore } from '../../src/index.js'

const cluster = clusterForFile()

const user = (req: { headers: Record<string, string | undefined> }) => req.headers['x-user']

describe.each(drivers)('$name', (driver) => {
  const open = openApps()
  const standalone = redisStore(`cluster-regression-${driver.name}`)
  const stores: [string, () => Promise<Store>][] = [
    ['standalone Redis', () => standalone.create() as Promise<Store>],
    [
      'a 3-master Cluster',
      async () =>
        new RedisStore({
          client: cluster.client,
          prefix: `fgtest:layered:${process.pid}:${Date.now()}`,
        }),
    ],
  ]

  it.each(stores)('on %s: user y behind the same IP gets its 2 while x floods', async (name, create) => {
    const store = await create()
    try {
      const a = open(
        await driver.createApp({
          trustProxy: true,
          options: {
            store,
            storeTimeout: '5s',
            prefix: `layered-${driver.name}-${Date.now()}`,
            user,
            limits: [
              { name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 10, window: '1m' }) },
              { name: 'user', key: 'user', algorithm: fixedWindow({ limit: 2, window: '1m' }) },
            ],
          },
        }),
      )
      const as = (id: string) => a.request({ path: '/', headers: { ...fwd('198.51.100.7'), 'x-user': id } })
      const [x, y] = await Promise.all([
        Promise.all(Array.from({ length: 30 }, () => as('x'))),
        Promise.all(Array.from({ length: 8 }, () => as('y'))),
      ])
      expect(x.filter((r) => r.status === 200)).toHaveLength(2)
      expect(y.filter((r) => r.status === 200)).toHaveLength(2)
      // Nothing x's refusals took was kept: after z's request, 10 - 2 - 2 - 1 = 5 of the IP's quota is left.
      const probe = await as('z')
      expect(probe.status).toBe(200)
      expect([probe.headers['ratelimit-limit'], probe.headers['ratelimit-remaining']]).toEqual(['10', '5'])
    } finally {
      if (name === 'standalone Redis') await standalone.destroy!(store)
    }
  })

  it('on a Cluster, one caller’s policies are decided together: a burst limit and a user limit agree', async () => {
    const store = new RedisStore({
      client: cluster.client,
      prefix: `fgtest:caller:${process.pid}:${Date.now()}`,
    })
    const a = open(
      await driver.createApp({
        options: {
          store,
          storeTimeout: '5s',
          user,
          limits: [
            { name: 'user', key: 'user', algorithm: fixedWindow({ limit: 10, window: '1h' }) },
            {
              name: 'burst',
              key: 'user',
              algorithm: tokenBucket({ capacity: 3, refillRate: 1, interval: '1h' }),
            },
          ],
        },
      }),
    )
    const responses = await Promise.all(
      Array.from({ length: 30 }, () => a.request({ path: '/', headers: { 'x-user': 'alice' } })),
    )
    expect(responses.filter((r) => r.status === 200)).toHaveLength(3)
    // The 27 refused spent nothing in 'user', not even for a moment that a later decision could see.
    const keys = [
      store.keyOf(fixedWindow({ limit: 10, window: '1h' }), 'user|{user:alice}'),
      store.keyOf(tokenBucket({ capacity: 3, refillRate: 1, interval: '1h' }), 'burst|{user:alice}'),
    ]
    const slots = await Promise.all(keys.map((k) => cluster.client.cluster('KEYSLOT', k)))
    expect(new Set(slots).size).toBe(1)
  })
})

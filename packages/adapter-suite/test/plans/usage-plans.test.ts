// Usage plans and tiers through every adapter, on memory, Redis and a real 3-master Cluster: the gateway's
// free tier (10/s, burst 50, 10,000 a day, here a smaller quota) until the next day, the usage report and its
// reset, 401 and 403 counted by the per-IP limit only, tiers shared through one store, and one key's plan
// state on one Cluster slot, decided by one script.
import { fixedWindow, MemoryStore, type Store, tokenBucket } from '@floodgate/core'
import { keySlot, RedisStore } from '@floodgate/redis'
import { virtualClock } from '@floodgate/testing'
import { describe, expect, it } from 'vitest'
import { clusterForFile, drivers, openApps, redisStore, START } from '../../src/index.js'

const cluster = clusterForFile()

const plans = {
  free: { rate: 10, burst: 50, quota: { limit: 60, period: 'day' as const } },
  pro: { rate: 100, burst: 500 },
}
const keys: Record<string, string> = { 'key-free': 'free', 'key-pro': 'pro' }

describe.each(drivers)('$name', (driver) => {
  const open = openApps()
  const standalone = redisStore(`plans-${driver.name}`)
  const stores: [string, () => Promise<Store>, (store: Store) => Promise<void>][] = [
    ['memory', async () => new MemoryStore(), async () => {}],
    ['redis', () => standalone.create() as Promise<Store>, (s) => standalone.destroy!(s) as Promise<void>],
    [
      'a Cluster',
      async () =>
        new RedisStore({
          client: cluster.client,
          prefix: `fgtest:plans:${process.pid}:${Date.now()}`,
        }),
      async () => {},
    ],
  ]
  /** A test on each store, the store made for it and dropped after it. */
  const onEachStore = (title: string, test: (store: Store) => Promise<void>) =>
    it.each(stores)(`on %s: ${title}`, async (_name, create, destroy) => {
      const store = await create()
      try {
        await test(store)
      } finally {
        await destroy(store)
      }
    })

  onEachStore('the free tier’s burst, rate and quota, 401 and 403', async (store) => {
    const clock = virtualClock(START)
    const a = open(
      await driver.createApp({
        options: {
          store,
          storeTimeout: '5s',
          clock: clock.now,
          prefix: `plans-${driver.name}-${Date.now()}`,
          headers: 'draft-8',
          plans,
          apiKey: (req: { headers: Record<string, string | undefined> }) => req.headers['x-api-key'],
          planOf: async (apiKey: string) => keys[apiKey],
        },
      }),
    )
    const as = (key?: string) => a.request({ path: '/', headers: key ? { 'x-api-key': key } : {} })
    const burst = await Promise.all(Array.from({ length: 51 }, () => as('key-free')))
    expect(burst.filter((r) => r.status === 200)).toHaveLength(50)
    const refused = burst.find((r) => r.status === 429)!
    expect(refused.body).toMatchObject({ error: 'rate_limited', policy: 'rate' })
    expect(refused.headers.ratelimit).toMatch(/^"rate";r=0;t=1, "quota";r=10;t=\d+$/)
    clock.advance(1000)
    expect(
      (await Promise.all(Array.from({ length: 11 }, () => as('key-free')))).filter((r) => r.status === 200),
    ).toHaveLength(10)
    // The quota of 60 has 0 left; the bucket refills, the quota does not.
    clock.advance(10_000)
    const over = await as('key-free')
    expect(over.status).toBe(429)
    expect(over.body).toMatchObject({
      error: 'quota_exceeded',
      message: 'Limit Exceeded',
      policy: 'quota',
    })
    expect(over.headers['ratelimit-policy']).toBe('"rate";q=50;w=5, "quota";q=60;w=86400')
    // Until 00:00 UTC: from 12:00:11 that is 43,189 s.
    expect(over.headers['retry-after']).toBe('43189')
    expect(await a.usage!.usage('key-free')).toMatchObject({
      plan: 'free',
      quota: { limit: 60, used: 60, remaining: 0 },
    })
    expect((await as()).status).toBe(401)
    expect((await as('forged')).status).toBe(403)
    expect((await as('key-pro')).status).toBe(200)
    // The next day: the quota is whole again.
    clock.set(Date.UTC(2026, 0, 2))
    expect((await as('key-free')).status).toBe(200)
    expect((await a.usage!.usage('key-free'))!.quota).toMatchObject({ used: 1, remaining: 59 })
    // Support staff give the key a fresh quota.
    expect(await a.usage!.resetUsage('key-free')).toBe(true)
    expect((await a.usage!.usage('key-free'))!.quota).toMatchObject({ used: 0, remaining: 60 })
    expect(await a.usage!.usage('forged')).toBeUndefined()
  })

  onEachStore(
    '401 and 403 are counted by the per-IP limit only; a client over it is refused before any lookup',
    async (store) => {
      const lookups: string[] = []
      const a = open(
        await driver.createApp({
          options: {
            store,
            storeTimeout: '5s',
            prefix: `plans-flood-${driver.name}-${Date.now()}`,
            plans,
            apiKey: (req: { headers: Record<string, string | undefined> }) => req.headers['x-api-key'],
            planOf: async (apiKey: string) => {
              lookups.push(apiKey)
              return keys[apiKey]
            },
            limits: [{ name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 4, window: '1m' }) }],
          },
        }),
      )
      const as = (key?: string) => a.request({ path: '/', headers: key ? { 'x-api-key': key } : {} })
      const statuses = []
      for (const key of [
        undefined,
        'made-up-1',
        'key-free',
        'made-up-2',
        'made-up-3',
        'key-pro',
        undefined,
      ]) {
        statuses.push((await as(key)).status)
      }
      expect(statuses).toEqual([401, 403, 200, 403, 429, 429, 429])
      // The free key's plan spent one unit of its own; the refused requests asked planOf nothing.
      expect(lookups).toEqual(['made-up-1', 'key-free', 'made-up-2'])
      expect((await a.usage!.usage('key-free'))!.quota).toMatchObject({ used: 1 })
    },
  )

  onEachStore('the account tier is shared by two apps through one store', async (store) => {
    const app = async (name: string) =>
      open(
        await driver.createApp({
          options: {
            store,
            storeTimeout: '5s',
            prefix: `tiers-${name}-${driver.name}-${Date.now()}`,
            tiers: [
              {
                name: `account-${driver.name}`,
                key: 'global',
                algorithm: fixedWindow({ limit: 5, window: '1m' }),
              },
              {
                name: `stage-${name}`,
                key: 'global',
                algorithm: fixedWindow({ limit: 3, window: '1m' }),
              },
            ],
          },
        }),
      )
    const [a, b] = [await app('a'), await app('b')]
    const fromA = []
    for (let i = 0; i < 4; i++) fromA.push((await a.request({ path: '/' })).status)
    expect(fromA).toEqual([200, 200, 200, 429]) // its own stage tier: 3
    const fromB = []
    for (let i = 0; i < 3; i++) fromB.push(await b.request({ path: '/' }))
    // The account's 5: 3 spent by the other app, 2 left for this one.
    expect(fromB.map((r) => r.status)).toEqual([200, 200, 429])
    expect(fromB[2]!.body.policy).toBe(`account-${driver.name}`)
  })

  it('a route tier replaces the innermost tier for that route and keeps the account tier', async () => {
    const a = open(
      await driver.createApp({
        options: {
          store: new MemoryStore(),
          headers: 'draft-8',
          tiers: [
            { name: 'account', key: 'global', algorithm: fixedWindow({ limit: 6, window: '1m' }) },
            { name: 'route', key: 'endpoint', algorithm: fixedWindow({ limit: 4, window: '1m' }) },
          ],
          routes: { 'GET /reports': { limit: 1, window: '1m' } },
        },
        routes: [{ path: '/reports' }, { path: '/items' }],
        routerOption: true,
      }),
    )
    const reports = [await a.request({ path: '/reports' }), await a.request({ path: '/reports' })]
    expect(reports.map((r) => r.status)).toEqual([200, 429])
    expect(reports[1]!.body.policy).toBe('route')
    const items = []
    for (let i = 0; i < 6; i++) items.push((await a.request({ path: '/items' })).status)
    // 4 for the route tier of /items, then the account's 6 are spent (1 by /reports, 4 by /items, 1 left).
    expect(items).toEqual([200, 200, 200, 200, 429, 429])
    expect((await a.request({ path: '/reports' })).body.policy).toBe('route')
  })
})

describe('a Cluster', () => {
  it('decides a plan (its rate and its quota) with one script per request', async () => {
    const { createRateLimitHandler } = await import('@floodgate/core/internal')
    const store = new RedisStore({ client: cluster.client, prefix: `fgtest:one-script:${Date.now()}` })
    const handler = createRateLimitHandler({
      store,
      plans,
      apiKey: (req: { key: string }) => req.key,
      planOf: (apiKey: string) => keys[apiKey],
    })
    const info = {
      ip: '127.0.0.1',
      method: 'GET',
      route: '/',
      path: '/',
      headers: {},
      native: { key: 'key-free' },
    }
    expect((await handler.handle(info)).kind).toBe('pass') // the plan is looked up and cached
    const evalsha = async () => {
      let calls = 0
      for (const node of cluster.client.nodes('master')) {
        calls += Number(/cmdstat_evalsha:calls=(\d+)/.exec(await node.info('commandstats'))?.[1] ?? 0)
      }
      return calls
    }
    const before = await evalsha()
    for (let i = 0; i < 5; i++) expect((await handler.handle(info)).kind).toBe('pass')
    expect((await evalsha()) - before).toBe(5)
  })

  it('puts one API key’s plan state on one slot', async () => {
    const store = new RedisStore({ client: cluster.client, prefix: 'fgtest:slots' })
    const rate = store.keyOf(tokenBucket({ capacity: 50, refillRate: 10 }), 'rate|{apikey:abc}')
    const quota = store.keyOf(fixedWindow({ limit: 1, window: 1000 }), 'quota|{apikey:abc}')
    expect(keySlot(rate)).toBe(keySlot(quota))
  })
})

describe('fastify', () => {
  it("with tiers, a route's config.rateLimit is its innermost tier: tighter only, outer tiers kept", async () => {
    const { default: Fastify } = await import('fastify')
    const { rateLimit } = await import('@floodgate/fastify')
    const app = Fastify()
    await app.register(rateLimit, {
      store: new MemoryStore(),
      tiers: [
        { name: 'account', key: 'global', algorithm: fixedWindow({ limit: 3, window: '1m' }) },
        { name: 'route', key: 'endpoint', algorithm: fixedWindow({ limit: 2, window: '1m' }) },
      ],
    })
    app.get('/x', { config: { rateLimit: { limit: 1, window: '1m' } } }, async () => ({ ok: true }))
    app.get('/y', async () => ({ ok: true }))
    const statuses = async (url: string, n: number) => {
      const out = []
      for (let i = 0; i < n; i++) out.push((await app.inject({ url })).statusCode)
      return out
    }
    expect(await statuses('/x', 2)).toEqual([200, 429])
    expect(await statuses('/y', 3)).toEqual([200, 200, 429]) // the account's 3: 1 by /x, 2 by /y
    await app.close()
    const looser = Fastify()
    await looser.register(rateLimit, {
      tiers: [{ name: 'route', key: 'endpoint', algorithm: fixedWindow({ limit: 2, window: '1m' }) }],
    })
    await expect(
      (async () => {
        looser.get('/z', { config: { rateLimit: { limit: 100, window: '1m' } } }, async () => ({ ok: true }))
        await looser.ready()
      })(),
    ).rejects.toMatchObject({ code: 'ERR_FLOODGATE_TIER_NOT_TIGHTER' })
  })
})

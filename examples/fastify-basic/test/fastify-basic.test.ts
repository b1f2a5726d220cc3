// Starts examples/fastify-basic/server.mjs as a child process and sends it real HTTP requests.
import { describe, expect, it } from 'vitest'
import { useExample } from '../../helpers/use-example.js'

const { get, post, statuses } = useExample('fastify-basic')

// One server, one client IP (127.0.0.1): the scenarios run in order and the 'ip' budget (30) carries across.
describe('examples/fastify-basic', () => {
  it('anonymous: 10 a minute (the per-user limit, keyed by IP), then 429 with draft-8 headers', async () => {
    const responses = await statuses(11, () => get('/'))
    expect(responses.map((r) => r.status)).toEqual([...Array(10).fill(200), 429])
    const first = responses[0]!
    expect(first.headers.get('ratelimit-policy')).toBe('"ip";q=30;w=3600, "user";q=10;w=60')
    expect(first.headers.get('ratelimit')).toMatch(/^"ip";r=29;t=120, "user";r=9;t=\d+$/)
    const refused = responses[10]!
    expect(refused.headers.get('ratelimit')).toMatch(/^"ip";r=20;t=\d+, "user";r=0;t=\d+$/)
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused.headers.get('cache-control')).toBe('no-store')
    expect(refused.headers.get('content-type')).toMatch(/^application\/json/)
    const body = await refused.json()
    expect(body).toMatchObject({ error: 'rate_limited', policy: 'user' })
    expect(body.retryAfter).toBe(Number(refused.headers.get('retry-after')))
  })

  it('each user has a budget of their own', async () => {
    const alice = await statuses(11, () => get('/me', 'alice'))
    expect(alice.map((r) => r.status)).toEqual([...Array(10).fill(200), 429])
    expect((await alice[10]!.json()).policy).toBe('user')
    const bob = await get('/me', 'bob')
    expect(bob.status).toBe(200)
    expect(await bob.json()).toEqual({ user: 'bob', remaining: { ip: 9, user: 9 } })
  })

  it('the expensive route (config.rateLimit): 3 a minute per user, a refusal spends nothing elsewhere', async () => {
    const carol = await statuses(4, () => post('/reports', 'carol'))
    expect(carol.map((r) => r.status)).toEqual([202, 202, 202, 429])
    const refused = carol[3]!
    expect(refused.headers.get('ratelimit-policy')).toBe(
      '"ip";q=30;w=3600, "user";q=10;w=60, "reports";q=3;w=60',
    )
    expect((await refused.json()).policy).toBe('reports')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1)
    // carol's user budget and the IP's lost 3 each, not 4 (and 1 more for this request)
    expect(await (await get('/me', 'carol')).json()).toEqual({ user: 'carol', remaining: { ip: 5, user: 6 } })
  })

  it('overrides: trial users get 2 a minute; an admin route changes it at runtime, without a restart', async () => {
    const trial = await statuses(3, () => get('/me', 'trial-1'))
    expect(trial.map((r) => r.status)).toEqual([200, 200, 429])
    expect(trial[0]!.headers.get('ratelimit-policy')).toBe('"ip";q=30;w=3600, "user";q=2;w=60')
    expect((await trial[2]!.json()).policy).toBe('user')
    const set = await post('/admin/overrides/trial-*?limit=1')
    expect(set.status).toBe(200)
    expect(await set.json()).toEqual({ pattern: 'trial-*', limit: 1 })
    const later = await statuses(2, () => get('/me', 'trial-2'))
    expect(later.map((r) => r.status)).toEqual([200, 429])
    expect(later[0]!.headers.get('ratelimit-policy')).toBe('"ip";q=30;w=3600, "user";q=1;w=60')
  })

  it('per IP: a client rotating user ids meets the IP limit (30 in a burst)', async () => {
    // Spent from 127.0.0.1 so far: 10 anonymous + 10 alice + 1 bob + 3 carol reports + 1 carol + 3 trial = 28.
    const rotating = await statuses(3, () => get('/me', `user-${Math.random()}`))
    expect(rotating.map((r) => r.status)).toEqual([200, 200, 429])
    const body = await rotating[2]!.json()
    expect(body.policy).toBe('ip')
    expect(rotating[2]!.headers.get('ratelimit')).toMatch(/^"ip";r=0;t=\d+, "user";r=10;t=0$/) // refused: nothing spent
  })

  it('/health is not limited', async () => {
    const res = await get('/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('ratelimit')).toBeNull()
  })
})

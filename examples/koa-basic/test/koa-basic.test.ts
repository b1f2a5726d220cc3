// Starts examples/koa-basic/server.mjs as a child process and sends it real HTTP requests.
import { describe, expect, it } from 'vitest'
import { useExample } from '../../helpers/use-example.js'

// One server per major, one client IP (127.0.0.1): the scenarios run in order and the 'ip' budget (30) carries across.
describe.each([
  { major: 'Koa 3', olderMajor: false },
  { major: 'Koa 2', olderMajor: true },
])('examples/koa-basic on $major', ({ olderMajor }) => {
  const { get, post, statuses } = useExample('koa-basic', { olderMajor })

  it('anonymous: 10 a minute (the per-user limit, keyed by IP), then 429 with draft-7 headers', async () => {
    const responses = await statuses(11, () => get('/'))
    expect(responses.map((r) => r.status)).toEqual([...Array(10).fill(200), 429])
    const first = responses[0]!
    // draft-7 reports the policy closest to its limit: here 'user' (9 of 10 left) over 'ip' (29 of 30)
    expect(first.headers.get('ratelimit')).toMatch(/^limit=10, remaining=9, reset=\d+$/)
    expect(first.headers.get('ratelimit-policy')).toBe('10;w=60')
    const refused = responses[10]!
    expect(refused.headers.get('ratelimit')).toMatch(/^limit=10, remaining=0, reset=\d+$/)
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

  it('the expensive route: 3 a minute per user, a refusal spends nothing in the other policies', async () => {
    const carol = await statuses(4, () => post('/reports', 'carol'))
    expect(carol.map((r) => r.status)).toEqual([202, 202, 202, 429])
    const refused = carol[3]!
    expect((await refused.json()).policy).toBe('reports')
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(1)
    // carol's user budget and the IP's lost 3 each, not 4 (and 1 more for this request)
    expect(await (await get('/me', 'carol')).json()).toEqual({ user: 'carol', remaining: { ip: 5, user: 6 } })
  })

  it('per IP: a client rotating user ids meets the IP limit (30 in a burst)', async () => {
    // Spent from 127.0.0.1 so far: 10 anonymous + 10 alice + 1 bob + 3 carol reports + 1 carol = 25.
    const rotating = await statuses(6, () => get('/me', `user-${Math.random()}`))
    expect(rotating.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429])
    const body = await rotating[5]!.json()
    expect(body.policy).toBe('ip')
    expect(rotating[5]!.headers.get('ratelimit')).toMatch(/^limit=30, remaining=0, reset=\d+$/)
    expect(rotating[5]!.headers.get('ratelimit-policy')).toBe('30;w=3600')
  })

  it('/health is not limited', async () => {
    const res = await get('/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('ratelimit')).toBeNull()
  })
})

// Starts examples/express-basic/server.mjs as a child process and sends it real HTTP requests.
import { describe, expect, it } from 'vitest'
import { useExample } from '../../helpers/use-example.js'

// One server per major, one client IP (127.0.0.1): the scenarios run in order and the 'ip' budget (30) carries across.
describe.each([
  { major: 'Express 5', olderMajor: false },
  { major: 'Express 4', olderMajor: true },
])('examples/express-basic on $major', ({ olderMajor }) => {
  const { get, post, statuses } = useExample('express-basic', { olderMajor })

  it('anonymous: 10 a minute (the per-user limit, keyed by IP), then 429 with draft-6 headers', async () => {
    const responses = await statuses(11, () => get('/'))
    expect(responses.map((r) => r.status)).toEqual([...Array(10).fill(200), 429])
    expect(responses[0]!.headers.get('ratelimit-limit')).toBe('10')
    expect(responses[0]!.headers.get('ratelimit-remaining')).toBe('9')
    expect(responses[0]!.headers.get('ratelimit-policy')).toBe('10;w=60')
    const refused = responses[10]!
    expect(refused.headers.get('ratelimit-remaining')).toBe('0')
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
    expect(rotating[5]!.headers.get('ratelimit-limit')).toBe('30')
  })

  it('settled costs: a chat is charged its most up front, then what it used; a stream that used more takes the user over', async () => {
    const chat = await post('/v1/chat?max_tokens=500&used=100', 'dave')
    expect(chat.status).toBe(200)
    expect(chat.headers.get('ratelimit-remaining')).toBe('500') // charged 500 up front
    expect(await chat.json()).toEqual({ usage: { totalTokens: 100 }, estimated: 500 })
    // Settled with 100 when the response was done: 400 given back.
    expect((await post('/v1/chat?max_tokens=500&used=100', 'dave')).headers.get('ratelimit-remaining')).toBe(
      '400',
    )
    // 200 used so far. A streamed answer is charged 200 up front, then settles itself with the 900 tokens it
    // streamed: 1,100 of 1,000, over the limit.
    const stream = await post('/v1/chat/stream?max_tokens=200&used=900', 'dave')
    expect(stream.status).toBe(200)
    expect(stream.headers.get('ratelimit-remaining')).toBe('600')
    expect((await stream.text()).split(' ')).toHaveLength(901)
    const refused = await post('/v1/chat?max_tokens=500&used=100', 'dave')
    expect(refused.status).toBe(429)
    expect((await refused.json()).policy).toBe('tokens')
    // 1,100 + 500 must drain to 1,000 at 1,000 tokens an hour: 36 minutes, the honest wait.
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(2150)
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(2160)
    // Another user's tokens are their own.
    expect((await post('/v1/chat?max_tokens=500&used=100', 'erin')).status).toBe(200)
  })

  it('/health is not limited', async () => {
    const res = await get('/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('ratelimit-limit')).toBeNull()
  })
})

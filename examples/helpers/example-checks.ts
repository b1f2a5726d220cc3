// What the examples' READMEs promise, as assertions: the tests run them against the examples in the repository
// and against copies installed from packed tarballs.
import { expect } from 'vitest'

/** `examples/demo`: both scenes' tables, the headers of a pass and of a refusal, and the 429 body. */
export function expectDemoOutput(stdout: string): void {
  const rows = stdout.split('\n').filter((line) => /^\s+\d+\s+GET \/hello/.test(line))
  expect(rows.map((line) => line.trim().split(/\s+/)[3])).toEqual([
    '200',
    '200',
    '200',
    '200',
    '200',
    '429',
    '429',
    '429',
  ])
  expect(stdout).toContain('RateLimit-Policy: 5;w=30')
  expect(stdout).toContain('Cache-Control: no-store')
  expect(stdout).toMatch(/Retry-After: \d+/)
  expect(stdout).toMatch(/\{"error":"rate_limited","message":"Too many requests, retry in \d+ seconds?\.",/)
  // Why Retry-After and RateLimit-Reset can be longer than the window, with this run's numbers
  expect(stdout).toMatch(/Why wait \d+ s, and \d+ s for the whole quota, when the window is 30 s\?/)
  expect(stdout).toContain('One more request fits once that is 4 or less, 6 s in')
  // Scene 2: the third export is refused by 'export', the fourth search by 'ip'
  expect(stdout).toMatch(/3\s+POST \/export\s+429\s+export\s+"ip";r=3;t=\d+, "export";r=0;t=60\s+60/)
  expect(stdout).toMatch(/7\s+GET \/search\s+429\s+ip\s+"ip";r=0;t=\d+\s+\d+/)
}

interface Answer {
  status: number
  headers: Headers
  body: any
}

async function send(url: string, { method = 'GET', user }: { method?: string; user?: string } = {}) {
  const res = await fetch(url, { method, headers: user ? { 'x-user': user } : {} })
  const answer: Answer = { status: res.status, headers: res.headers, body: await res.json() }
  return answer
}

async function repeat(n: number, request: () => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = []
  for (let i = 0; i < n; i++) answers.push(await request())
  return answers
}

/**
 * The curl lines of the express-basic, fastify-basic and koa-basic READMEs, in their order, on a fresh server,
 * with the statuses and bodies those READMEs document.
 */
export async function expectLayeredExample(base: string): Promise<void> {
  const health = await send(`${base}/health`)
  expect(health.status).toBe(200)
  expect(health.headers.get('ratelimit-policy')).toBeNull()

  const me = await send(`${base}/me`, { user: 'alice' })
  expect(me.status).toBe(200)
  expect(me.headers.get('ratelimit-policy')).not.toBeNull()
  expect(me.body).toEqual({ user: 'alice', remaining: { ip: 29, user: 9 } })

  const reports = await repeat(5, () => send(`${base}/reports`, { method: 'POST', user: 'alice' }))
  expect(reports.map((r) => r.status)).toEqual([202, 202, 202, 429, 429])
  const refused = reports[4]!
  expect(refused.body).toMatchObject({ error: 'rate_limited', policy: 'reports' })
  const retryAfter = Number(refused.headers.get('retry-after'))
  expect(retryAfter).toBeGreaterThanOrEqual(50) // the rest of the minute since the first report
  expect(retryAfter).toBeLessThanOrEqual(60)
  expect(refused.headers.get('cache-control')).toBe('no-store')

  // The two refusals spent nothing: 1 + 3 from each budget.
  expect((await send(`${base}/me`, { user: 'alice' })).body).toEqual({
    user: 'alice',
    remaining: { ip: 25, user: 5 },
  })

  const anonymous = await repeat(11, () => send(`${base}/`))
  expect(anonymous.map((r) => r.status)).toEqual([...Array(10).fill(200), 429])
  expect(anonymous[10]!.body).toMatchObject({ error: 'rate_limited', policy: 'user' })
}

/** `examples/usage-plans`: the free plan's burst and rate, 401-free anonymous use, 403, the usage report. */
export async function expectUsagePlansExample(base: string): Promise<void> {
  const get = async (path: string, key?: string) => {
    const res = await fetch(`${base}${path}`, { headers: key ? { 'x-api-key': key } : {} })
    return { status: res.status, headers: res.headers, body: await res.json() }
  }
  const burst = []
  for (let i = 0; i < 6; i++) burst.push(await get('/v1/items', 'demo-free'))
  expect(burst.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 429])
  expect(burst[0]!.body.plan).toBe('free')
  expect(burst[0]!.headers.get('ratelimit-policy')).toBe(
    '"ip";q=100;w=60, "rate";q=5;w=5, "quota";q=20;w=86400',
  )
  expect(burst[5]!.body).toMatchObject({ error: 'rate_limited', policy: 'rate' })
  expect(Number(burst[5]!.headers.get('retry-after'))).toBe(1)
  expect((await get('/v1/items', 'no-such-key')).status).toBe(403)
  expect((await get('/v1/items')).body.plan).toBe('free') // the anonymous plan, per address
  expect((await get('/v1/items', 'demo-pro')).body.plan).toBe('pro')
  const usage = await get('/admin/usage/demo-free')
  expect(usage.body).toMatchObject({ plan: 'free', quota: { limit: 20, used: 5, remaining: 15 } })
  const reset = await fetch(`${base}/admin/usage/demo-free/reset`, { method: 'POST' })
  expect(await reset.json()).toEqual({ reset: true })
  expect((await get('/admin/usage/demo-free')).body.quota.used).toBe(0)
  expect((await get('/admin/usage/nobody')).status).toBe(404)
}

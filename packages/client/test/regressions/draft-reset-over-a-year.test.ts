// Regression: a draft reset of over a year read as "reset now". The legacy reading of `X-RateLimit-Reset` (a
// value above a year of seconds is an epoch time) was applied to the drafts' fields, which are delta seconds,
// always: `RateLimit-Reset: 31536001` gave `resetMs: 0`, so did draft-7 `reset=100000000` and draft-8
// `t=31536001`; a 429 carrying only these was retried three times at once, and `pace` held nothing back. A
// draft's reset is now at most a year, a wait longer than `maxRetryAfter` is returned at once, and the legacy
// epoch reading stays where it belongs.
import { Agent, request } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { createFetch } from '../../src/fetch.js'
import { readRateLimit } from '../../src/headers/index.js'
import { createInterceptor } from '../../src/undici.js'
import { plainServer, START, type TestServer, virtualTime } from '../servers.js'

const YEAR_MS = 365 * 24 * 3600 * 1000

const DRAFTS = {
  'draft-6': { 'ratelimit-limit': '10', 'ratelimit-remaining': '0', 'ratelimit-reset': '31536001' },
  'draft-7': { ratelimit: 'limit=10, remaining=0, reset=100000000' },
  'draft-8': { 'ratelimit-policy': '"day";q=10;w=86400', ratelimit: '"day";r=0;t=31536001' },
} as const

let servers: TestServer[] = []
const agents: Agent[] = []
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()))
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

describe.each(Object.entries(DRAFTS))('%s', (mode, headers) => {
  it('a reset of over a year reads as a year, never as now', () => {
    const [policy] = readRateLimit(headers, START).policies
    expect(policy).toMatchObject({ mode, remaining: 0, resetMs: YEAR_MS })
  })

  it('a 429 carrying only these headers is returned at once, by createFetch and by the interceptor', async () => {
    const server = await plainServer((_req, res) => res.writeHead(429, headers).end('refused'))
    servers.push(server)
    const time = virtualTime()
    const politeFetch = createFetch({ now: time.now, sleep: time.sleep })
    expect((await politeFetch(server.url)).status).toBe(429)
    const agent = new Agent()
    agents.push(agent)
    const dispatcher = agent.compose(createInterceptor({ now: time.now, sleep: time.sleep }))
    const res = await request(server.url, { dispatcher })
    await res.body.dump()
    expect(res.statusCode).toBe(429)
    expect(server.statuses).toEqual([429, 429]) // one request each: no retry
    expect(time.sleeps).toEqual([])
  })

  it('pace holds the next request back (for maxPaceDelay, the longest it holds one)', async () => {
    const server = await plainServer((_req, res) => res.writeHead(200, headers).end('ok'))
    servers.push(server)
    const time = virtualTime()
    const politeFetch = createFetch({ now: time.now, sleep: time.sleep, pace: true, maxPaceDelay: '10s' })
    await (await politeFetch(server.url)).text()
    await (await politeFetch(server.url)).text()
    expect(time.sleeps).toEqual([10_000])
  })
})

describe('legacy X-RateLimit-Reset', () => {
  it('still reads a value above a year of seconds as an epoch time (seconds, or ms above 1e11)', () => {
    const inSeconds = {
      'x-ratelimit-limit': '10',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(START / 1000 + 30),
    }
    const inMs = { ...inSeconds, 'x-ratelimit-reset': String(START + 45_000) }
    expect(readRateLimit(inSeconds, START).policies[0]).toMatchObject({ mode: 'legacy', resetMs: 30_000 })
    expect(readRateLimit(inMs, START).policies[0]).toMatchObject({ mode: 'legacy', resetMs: 45_000 })
    expect(readRateLimit({ 'x-ratelimit-reset': '30' }, START).policies[0]).toMatchObject({ resetMs: 30_000 })
  })
})

// What a limiter reports through the metrics interface, seen by a recording sink: every request outcome, each
// policy's decisions, near-limit decisions, usage-plan quota refusals; instruments made once, never per request.
import {
  fixedWindow,
  MemoryStore,
  type MetricsSink,
  RateLimitConfigError,
  type RateLimitOptions,
  type RequestInfo,
  type Store,
} from '@floodgate/core'
import { createRateLimitHandler, requestOutcome } from '@floodgate/core/internal'
import { recordingSink } from '@floodgate/test-harness'
import { describe, expect, it } from 'vitest'

const START = Date.UTC(2026, 0, 1, 12)
type Req = { headers: Record<string, string> }
const request = (headers: Record<string, string> = {}, ip = '203.0.113.7'): RequestInfo<Req> => ({
  ip,
  method: 'GET',
  route: '/',
  path: '/',
  headers,
  native: { headers },
})

function limiter(options: RateLimitOptions<Req>, sink = recordingSink()) {
  const handler = createRateLimitHandler<Req>({ clock: () => START, ...options, metrics: sink })
  return {
    handler,
    sink,
    send: (headers?: Record<string, string>, ip?: string) => handler.handle(request(headers, ip)),
  }
}

const requests = (sink: ReturnType<typeof recordingSink>, outcome: string) =>
  sink.count('floodgate.requests', { outcome })
const decisions = (sink: ReturnType<typeof recordingSink>, policy: string, outcome: string) =>
  sink.count('floodgate.decisions', { policy, outcome })

describe('limiter metrics', () => {
  it('counts each request by outcome and each policy decision, as the limiter decided them', async () => {
    const { send, sink } = limiter({ limit: 3, window: '1m' })
    const statuses = []
    for (let i = 0; i < 5; i++) statuses.push((await send()).status)
    expect(statuses).toEqual([undefined, undefined, undefined, 429, 429])
    expect(requests(sink, 'allowed')).toBe(3)
    expect(requests(sink, 'limited')).toBe(2)
    expect(decisions(sink, 'ip', 'allowed')).toBe(3)
    expect(decisions(sink, 'ip', 'limited')).toBe(2)
    expect(decisions(sink, 'ip', 'dry_run_limited')).toBe(0)
    // Every outcome's series exists from the start, at 0.
    for (const outcome of ['skipped', 'no_plan', 'error', 'dry_run_limited']) {
      expect(sink.made.has(`floodgate.requests{outcome="${outcome}"}`)).toBe(true)
      expect(requests(sink, outcome)).toBe(0)
    }
  })

  it('near the limit: allowed decisions that left less than the share of the limit (0.2 by default)', async () => {
    const { send, sink } = limiter({ limit: 10, window: '1m' })
    for (let i = 0; i < 10; i++) await send()
    // remaining 9..0: below 2 (a fifth of 10) are 1 and 0
    expect(sink.count('floodgate.near_limit', { policy: 'ip' })).toBe(2)
    const half = limiter({ limit: 10, window: '1m' }, recordingSink({ nearLimit: 0.5 }))
    for (let i = 0; i < 10; i++) await half.send()
    expect(half.sink.count('floodgate.near_limit', { policy: 'ip' })).toBe(5) // remaining 4..0
  })

  it('several policies: each counts its own decision; a refusal by one leaves the others allowed', async () => {
    const { send, sink } = limiter({
      limits: [
        { name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }) },
        { name: 'burst', key: 'ip', algorithm: fixedWindow({ limit: 2, window: '1m' }) },
      ],
    })
    for (let i = 0; i < 3; i++) await send()
    expect(requests(sink, 'allowed')).toBe(2)
    expect(requests(sink, 'limited')).toBe(1)
    expect(decisions(sink, 'burst', 'allowed')).toBe(2)
    expect(decisions(sink, 'burst', 'limited')).toBe(1)
    expect(decisions(sink, 'ip', 'allowed')).toBe(3)
    expect(decisions(sink, 'ip', 'limited')).toBe(0)
  })

  it('dry run: refusals counted as dry_run_limited, the request let through', async () => {
    const { send, sink } = limiter({ limit: 1, window: '1m', dryRun: true })
    expect((await send()).kind).toBe('pass')
    expect((await send()).kind).toBe('pass')
    expect(requests(sink, 'allowed')).toBe(1)
    expect(requests(sink, 'dry_run_limited')).toBe(1)
    expect(decisions(sink, 'ip', 'dry_run_limited')).toBe(1)
    expect(decisions(sink, 'ip', 'limited')).toBe(0)
  })

  it('skipped: by skip and by the allow list', async () => {
    const { send, sink } = limiter({
      limit: 1,
      window: '1m',
      skip: (req) => req.headers['x-health'] === '1',
      allowList: ['10.0.0.0/8'],
    })
    await send({ 'x-health': '1' })
    await send({}, '10.1.2.3')
    expect(requests(sink, 'skipped')).toBe(2)
    expect(decisions(sink, 'ip', 'allowed')).toBe(0)
  })

  it('error: a store that fails leaves the request undecided (fail open or closed alike)', async () => {
    const broken: Store = {
      consume: () => Promise.reject(new Error('down')),
      peek: () => Promise.reject(new Error('down')),
      refund: () => undefined,
      reset: () => undefined,
      close: () => undefined,
    }
    const open = limiter({ store: broken, onError: () => {} })
    expect((await open.send()).kind).toBe('pass')
    const closed = limiter({ store: broken, failMode: 'closed', onError: () => {} })
    expect((await closed.send()).status).toBe(503)
    expect(requests(open.sink, 'error')).toBe(1)
    expect(requests(closed.sink, 'error')).toBe(1)
    expect(requests(open.sink, 'allowed')).toBe(0)
    expect(open.sink.count('floodgate.fail_mode', { mode: 'open' })).toBe(1)
    expect(closed.sink.count('floodgate.fail_mode', { mode: 'closed' })).toBe(1)
    // With a fallback store, the request is decided there: allowed, and counted as the fallback's.
    const fallback = limiter({ store: broken, failMode: { fallback: new MemoryStore() }, onError: () => {} })
    expect((await fallback.send()).kind).toBe('pass')
    expect(fallback.sink.count('floodgate.fail_mode', { mode: 'fallback' })).toBe(1)
    expect(requests(fallback.sink, 'allowed')).toBe(1)
  })

  it('usage plans: quota refusals by plan, rate refusals not; 401 and 403 as no_plan', async () => {
    const { send, sink } = limiter({
      plans: {
        free: { rate: 100, burst: 100, quota: { limit: 2, period: 'day' } },
        pro: { rate: 1, burst: 1 },
      },
      apiKey: (req) => req.headers['x-api-key'],
      planOf: (key) => ({ f: 'free', p: 'pro' })[key],
    })
    for (let i = 0; i < 3; i++) await send({ 'x-api-key': 'f' })
    for (let i = 0; i < 2; i++) await send({ 'x-api-key': 'p' })
    expect((await send()).status).toBe(401)
    expect((await send({ 'x-api-key': 'nobody' })).status).toBe(403)
    expect(sink.count('floodgate.quota.refusals', { plan: 'free' })).toBe(1)
    expect(sink.count('floodgate.quota.refusals', { plan: 'pro' })).toBe(0) // refused by its rate, not a quota
    expect(decisions(sink, 'quota', 'limited')).toBe(1)
    expect(decisions(sink, 'rate', 'limited')).toBe(1)
    expect(requests(sink, 'limited')).toBe(2)
    expect(requests(sink, 'no_plan')).toBe(2)
  })

  it('makes its instruments once: a thousand requests later, none more', async () => {
    const { send, sink } = limiter({ limit: 1e9, window: '1m' })
    await send()
    const made = sink.instrumentsMade()
    for (let i = 0; i < 1000; i++) await send()
    expect(sink.instrumentsMade()).toBe(made)
    expect(requests(sink, 'allowed')).toBe(1001)
  })

  it('two limiters on one sink count into the same series', async () => {
    const sink = recordingSink()
    const a = limiter({ limit: 5, window: '1m', prefix: 'a' }, sink)
    const b = limiter({ limit: 5, window: '1m', prefix: 'b' }, sink)
    await a.send()
    await b.send()
    expect(decisions(sink, 'ip', 'allowed')).toBe(2)
  })

  it('a sink that throws never fails a request, nor rejects', async () => {
    const throwing: MetricsSink = {
      counter: () => ({
        add() {
          throw new Error('sink down')
        },
      }),
      histogram: () => ({ record() {} }),
      gauge: () => () => {},
    }
    const handler = createRateLimitHandler<Req>({ limit: 1, window: '1m', metrics: throwing })
    expect((await handler.handle(request())).kind).toBe('pass')
    expect((await handler.handle(request())).status).toBe(429)
  })

  it('a metrics option that is not a sink fails at creation, naming it', () => {
    expect(() => createRateLimitHandler({ metrics: {} as MetricsSink })).toThrow(RateLimitConfigError)
    expect(() => createRateLimitHandler({ metrics: 'prometheus' as never })).toThrow(
      /rateLimit\.metrics.*metrics sink/,
    )
  })
})

describe('requestOutcome', () => {
  it('reads the outcome from what the limiter answered', async () => {
    const { send } = limiter({ limit: 1, window: '1m' })
    expect(requestOutcome(await send())).toBe('allowed')
    expect(requestOutcome(await send())).toBe('limited')
  })
})

import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  fixedWindow,
  MemoryStore,
  RateLimitConfigError,
  type RateLimitOptions,
  type RequestInfo,
} from '../../src/index.js'
import { createRateLimitHandler } from '../../src/internal.js'
import { sha256Text128 } from '../../src/store-keys/sha256.js'
import { encodeKeyPart } from '../../src/store-keys/store-key.js'

// The API gateway's usage plan example: "free-tier": rate 10 req/s, burst 50, quota 10,000/day.
const START = Date.UTC(2026, 2, 14, 6) // a Saturday, 06:00 UTC
const keys: Record<string, string> = { 'key-free': 'free', 'key-pro': 'pro' }

function setup(extra: Partial<RateLimitOptions> = {}) {
  let now = START
  const lookups: string[] = []
  const errors: { code: string }[] = []
  const handler = createRateLimitHandler({
    store: new MemoryStore(),
    clock: () => now,
    headers: 'draft-8',
    plans: {
      free: { rate: 10, burst: 50, quota: { limit: 10_000, period: 'day' } },
      pro: { rate: 100, burst: 500, quota: { limit: 5_000_000, period: 'month' } },
    },
    apiKey: (req: { key?: string }) => req.key,
    planOf: async (apiKey: string) => {
      lookups.push(apiKey)
      return keys[apiKey]
    },
    onError: (error) => errors.push(error as { code: string }),
    ...extra,
  })
  const req = (key?: string, ip = '203.0.113.7'): RequestInfo<any> => ({
    ip,
    method: 'GET',
    route: '/things',
    path: '/things',
    headers: {},
    native: { key },
  })
  const send = (key?: string, ip?: string) => handler.handle(req(key, ip))
  return {
    handler,
    send,
    lookups,
    errors,
    advance: (ms: number) => (now += ms),
    set: (t: number) => (now = t),
  }
}

afterEach(() => vi.useRealTimers())

describe('usage plans', () => {
  it('free tier, 10/s with a burst of 50: 50 at once pass, the 51st is refused, 10 more a second later', async () => {
    const { send, advance } = setup()
    const burst = await Promise.all(Array.from({ length: 51 }, () => send('key-free')))
    expect(burst.filter((o) => o.kind === 'pass')).toHaveLength(50)
    const refused = burst.find((o) => o.kind === 'answer')!
    expect(refused.status).toBe(429)
    expect(JSON.parse(refused.body!)).toMatchObject({ error: 'rate_limited', policy: 'rate' })
    expect(refused.headers['retry-after']).toBe('1')
    advance(1000)
    const next = await Promise.all(Array.from({ length: 11 }, () => send('key-free')))
    expect(next.filter((o) => o.kind === 'pass')).toHaveLength(10)
  })

  it('10,000 a day: the 10,001st is "Limit Exceeded" even with a full bucket, and passes at 00:00 UTC', async () => {
    const { send, advance, set } = setup()
    for (let i = 0; i < 10_000; i++) {
      expect((await send('key-free')).kind).toBe('pass')
      advance(100) // 10 a second: the bucket never runs dry
    }
    advance(60_000) // the bucket is full again
    const over = await send('key-free')
    expect(over.status).toBe(429)
    expect(JSON.parse(over.body!)).toEqual({
      error: 'quota_exceeded',
      message: 'Limit Exceeded',
      retryAfter: Number(over.headers['retry-after']),
      policy: 'quota',
    })
    const midnight = Date.UTC(2026, 2, 15)
    set(midnight - 1)
    expect((await send('key-free')).status).toBe(429)
    set(midnight)
    expect((await send('key-free')).kind).toBe('pass')
    // Retry-After points at the start of the next period.
    expect(Number(over.headers['retry-after'])).toBeGreaterThan(15 * 3600)
  })

  it('headers report both policies, the quota with its period as w', async () => {
    const { send } = setup()
    const outcome = await send('key-free')
    expect(outcome.headers['ratelimit-policy']).toBe('"rate";q=50;w=5, "quota";q=10000;w=86400')
    expect(outcome.headers.ratelimit).toBe('"rate";r=49;t=1, "quota";r=9999;t=64800')
    expect(outcome.plan).toBe('free')
  })

  it('a quota refusal as problem+json is the RateLimit draft’s quota-exceeded with violated-policies', async () => {
    const { send } = setup({
      format: 'problem+json',
      plans: { tiny: { rate: 10, burst: 10, quota: { limit: 1, period: 'week' } } },
      planOf: () => 'tiny',
    })
    await send('k')
    const refused = await send('k')
    expect(refused.contentType).toBe('application/problem+json')
    expect(JSON.parse(refused.body!)).toMatchObject({
      type: 'https://iana.org/assignments/http-problem-types#quota-exceeded',
      title: 'Limit Exceeded',
      status: 429,
      'violated-policies': ['quota'],
    })
  })

  it('no key and no anonymous plan: 401; an unknown key: 403; both counted by the per-IP limit, never by a plan', async () => {
    const { send, lookups } = setup({
      limits: [{ name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 4, window: '1m' }) }],
    })
    expect((await send()).status).toBe(401)
    expect((await send('nobody')).status).toBe(403)
    // A key's request spends one unit of the per-IP limit, as any request does: 4 - 3 = 1 left.
    const passed = await send('key-free')
    expect(passed.kind).toBe('pass')
    expect(passed.decisions.find((d) => d.policy === 'ip')!.remaining).toBe(1)
    expect(passed.decisions.find((d) => d.policy === 'rate')!.remaining).toBe(49) // the plan: its own count
    expect((await send('nobody')).status).toBe(403)
    // The IP has spent its limit: refused before the key is looked at, whatever it sends.
    for (const key of [undefined, 'nobody', 'made-up', 'key-free']) {
      const refused = await send(key)
      expect(refused).toMatchObject({ kind: 'answer', status: 429 })
      expect(refused.decisions.filter((d) => !d.allowed).map((d) => d.policy)).toEqual(['ip'])
    }
    expect(lookups).toEqual(['nobody', 'key-free'])
    // Another address is not touched.
    expect((await send(undefined, '198.51.100.1')).status).toBe(401)
  })

  it('a flood of made-up keys from one address meets its per-IP limit: planOf is not asked once it is spent', async () => {
    const { send, lookups } = setup({
      limits: [{ name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 3, window: '1m' }) }],
    })
    const statuses = []
    for (let i = 0; i < 20; i++) statuses.push((await send(`made-up-${i}`)).status)
    expect(statuses).toEqual([403, 403, 403, ...Array(17).fill(429)])
    expect(lookups).toHaveLength(3)
  })

  it('a key looked up for the first time is decided on its limits and its plan as one, its app functions called once', async () => {
    const calls = { user: 0, cost: 0 }
    const { send, lookups } = setup({
      limits: [{ name: 'user', key: 'user', algorithm: fixedWindow({ limit: 2, window: '1m' }) }],
      user: () => {
        calls.user++
        return 'u1'
      },
      cost: async () => {
        calls.cost++
        return 1
      },
    })
    const first = await send('key-free')
    expect(first.kind).toBe('pass')
    expect(calls).toEqual({ user: 1, cost: 1 })
    expect(first.decisions.map((d) => [d.policy, d.remaining])).toEqual([
      ['user', 1],
      ['rate', 49],
      ['quota', 9_999],
    ])
    expect((await send('key-pro')).kind).toBe('pass') // looked up too: the user's limit is spent
    const refused = await send('key-free') // cached now: one decision of all three
    expect(refused).toMatchObject({ kind: 'answer', status: 429 })
    expect(refused.decisions.find((d) => d.policy === 'rate')!.remaining).toBe(49) // spent nothing
    expect(lookups).toEqual(['key-free', 'key-pro'])
    expect(calls).toEqual({ user: 3, cost: 3 })
  })

  it('a store that fails while a key is looked up never lets a request without a known key through', async () => {
    const down = async () => {
      throw new Error('store down')
    }
    const failing = {
      consume: down,
      consumeAll: down,
      peek: down,
      refund: down,
      reset: down,
      close: () => {},
    }
    for (const failMode of ['open', 'closed'] as const) {
      const { send } = setup({
        store: failing as never,
        failMode,
        limits: [{ name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 3, window: '1m' }) }],
      })
      const statuses = [await send(), await send('made-up'), await send('made-up'), await send('key-free')]
      expect(statuses.map((o) => (o.kind === 'pass' ? 'proceed' : o.status))).toEqual(
        failMode === 'open' ? [401, 403, 403, 'proceed'] : [503, 503, 503, 503],
      )
    }
  })

  it('lookups that fail are counted by the per-IP limit too: 503s, then 429 without a lookup', async () => {
    const calls: string[] = []
    const { send } = setup({
      limits: [{ name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 3, window: '1m' }) }],
      planOf: async (apiKey: string) => {
        calls.push(apiKey)
        if (apiKey.startsWith('bad')) throw new Error('db down')
        return apiKey.startsWith('proto') ? 'toString' : undefined
      },
    })
    const statuses = []
    for (let i = 0; i < 6; i++) statuses.push((await send(`bad-${i}`)).status)
    expect(statuses).toEqual([503, 503, 503, 429, 429, 429])
    expect(calls).toHaveLength(3)
    // A plan name that only an object's prototype has is no plan: 500, counted, never let through.
    const other = '198.51.100.9'
    const named = []
    for (let i = 0; i < 4; i++) named.push((await send(`proto-${i}`, other)).status)
    expect(named).toEqual([500, 500, 500, 429])
  })

  it('concurrent first requests with made-up keys: planOf is asked no more often than the per-IP limit allows', async () => {
    const { send, lookups } = setup({
      limits: [{ name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 3, window: '1m' }) }],
    })
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => send(`made-up-${i}`)))
    expect(outcomes.filter((o) => o.status === 403)).toHaveLength(3)
    expect(outcomes.filter((o) => o.status === 429)).toHaveLength(17)
    expect(lookups).toHaveLength(3)
  })

  it('requests without a known key never spend a limit every client shares (a global tier)', async () => {
    const { send } = setup({
      limits: [{ name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }) }],
      tiers: [{ name: 'account', key: 'global', algorithm: fixedWindow({ limit: 5, window: '1m' }) }],
    })
    for (let i = 0; i < 10; i++) {
      // No key: 401; a key planOf does not know: 403.
      expect((await send(i % 2 ? undefined : `made-up-${i}`, `198.51.100.${i}`)).status).toBe(
        i % 2 ? 401 : 403,
      )
    }
    const paying = await send('key-pro')
    expect(paying.kind).toBe('pass')
    expect(paying.decisions.find((d) => d.policy === 'account')!.remaining).toBe(4)
  })

  it('dry run: a client over its limits is let through and onLimited is called once per request, on every path', async () => {
    const limited: unknown[] = []
    const { send } = setup({
      dryRun: true,
      limits: [{ name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 1, window: '1m' }) }],
      onLimited: (outcome: unknown) => limited.push(outcome),
    })
    await send('key-free') // spends the limit
    for (const key of ['key-pro', 'made-up', undefined, 'key-free']) {
      const before = limited.length
      const outcome = await send(key)
      expect(outcome.kind).toBe('pass')
      expect(limited.length - before).toBe(1)
    }
  })

  it('the anonymous plan counts requests without a key per client address', async () => {
    const { send } = setup({ anonymousPlan: 'free', plans: { free: { rate: 1, burst: 2 } } })
    expect([(await send()).kind, (await send()).kind, (await send()).kind]).toEqual([
      'pass',
      'pass',
      'answer',
    ])
    expect((await send(undefined, '198.51.100.1')).kind).toBe('pass')
  })

  it('planOf is cached per key (unknown keys too) and called once for concurrent requests', async () => {
    const { send, lookups, advance } = setup()
    await Promise.all([send('key-free'), send('key-free'), send('key-free'), send('nobody'), send('nobody')])
    expect(lookups.sort()).toEqual(['key-free', 'nobody'])
    advance(59_000)
    await send('key-free')
    expect(lookups).toHaveLength(2)
    advance(2_000) // past the default ttl of a minute
    await send('key-free')
    expect(lookups).toHaveLength(3)
  })

  it('a planOf that throws, rejects or times out answers 503 and is reported: never unlimited', async () => {
    vi.useFakeTimers()
    const hang = setup({ planOf: () => new Promise(() => {}), planTimeout: '50ms' })
    const pending = hang.send('key-free')
    await vi.advanceTimersByTimeAsync(50)
    const timedOut = await pending
    expect([timedOut.status, timedOut.headers['retry-after']]).toEqual([503, '1'])
    expect(hang.errors.map((e) => e.code)).toEqual(['ERR_FLOODGATE_PLAN_LOOKUP_FAILED'])
    vi.useRealTimers()
    for (const planOf of [
      () => {
        throw new Error('db down')
      },
      async () => {
        throw new Error('db down')
      },
      () => 42 as never,
    ]) {
      const { send, errors } = setup({ planOf })
      expect((await send('key-free')).status).toBe(503)
      expect(errors.map((e) => e.code)).toEqual(['ERR_FLOODGATE_PLAN_LOOKUP_FAILED'])
    }
  })

  it('a planOf naming a plan that does not exist answers 500 and is reported', async () => {
    const { send, errors } = setup({ planOf: () => 'enterprise' })
    expect((await send('k')).status).toBe(500)
    expect(errors.map((e) => e.code)).toEqual(['ERR_FLOODGATE_UNKNOWN_PLAN'])
  })

  it('an apiKey function that fails counts as no key (anonymous plan or 401), reported', async () => {
    const { send, errors } = setup({
      apiKey: () => {
        throw new Error('bad header')
      },
    })
    expect((await send('key-free')).status).toBe(401)
    expect(errors.map((e) => e.code)).toEqual(['ERR_FLOODGATE_FUNCTION_FAILED'])
  })

  it('a refused request spends nothing in either policy of the plan', async () => {
    const { send, handler } = setup({
      plans: { free: { rate: 10, burst: 3, quota: { limit: 5, period: 'day' } } },
      planOf: () => 'free',
    })
    for (let i = 0; i < 3; i++) await send('k')
    expect((await send('k')).status).toBe(429) // the bucket
    expect((await handler.usage!.usage('k'))!.quota).toMatchObject({ used: 3, remaining: 2 })
  })

  it('a quota refusal spends nothing in the bucket either', async () => {
    const { send, handler, advance } = setup({
      plans: { free: { rate: 1, burst: 5, quota: { limit: 2, period: 'day' } } },
      planOf: () => 'free',
    })
    for (let i = 0; i < 2; i++) expect((await send('k')).kind).toBe('pass')
    advance(10_000) // the bucket is full again: 5
    for (let i = 0; i < 3; i++) {
      const refused = await send('k')
      expect(refused).toMatchObject({ kind: 'answer', status: 429 })
      expect(refused.decisions.find((d) => d.policy === 'rate')!.remaining).toBe(5)
    }
    expect((await handler.usage!.usage('k'))!.rate.remaining).toBe(5)
  })

  it('planCache: a ttl of its own, at most maxKeys answers (the oldest forgotten first), or false to ask every time', async () => {
    const cached = setup({ planCache: { maxKeys: 2, ttl: '10s' } })
    for (const key of ['key-free', 'key-pro', 'key-free']) await cached.send(key)
    expect(cached.lookups).toEqual(['key-free', 'key-pro'])
    await cached.send('nobody') // a third key: the oldest answer (key-free) goes
    await cached.send('key-pro')
    await cached.send('key-free')
    expect(cached.lookups).toEqual(['key-free', 'key-pro', 'nobody', 'key-free'])
    cached.advance(10_001) // past the ttl
    await cached.send('key-free')
    expect(cached.lookups).toHaveLength(5)
    const uncached = setup({ planCache: false })
    for (let i = 0; i < 3; i++) await uncached.send('key-free')
    expect(uncached.lookups).toEqual(['key-free', 'key-free', 'key-free'])
  })

  it('planCache keeps a key over 128 characters as its digest: cached as any other, never another key’s answer', async () => {
    const long = `pro-${'k'.repeat(15_000)}`
    const { send, lookups } = setup({
      planOf: (apiKey: string) => {
        lookups.push(apiKey.slice(0, 8))
        return apiKey === long ? 'pro' : undefined
      },
    })
    expect(await send(long)).toMatchObject({ kind: 'pass', plan: 'pro' })
    expect(await send(long)).toMatchObject({ kind: 'pass', plan: 'pro' })
    expect(lookups).toEqual(['pro-kkkk'])
    // A key spelled like a digest, or the long key with one character changed, has an answer of its own.
    const forgeries = [`%H${sha256Text128(encodeKeyPart(long))}`, `${long}x`, long.replace('pro-', 'pre-')]
    for (const forged of forgeries) expect(await send(forged)).toMatchObject({ kind: 'answer', status: 403 })
    expect(lookups).toHaveLength(4)
  })

  it('planCache: false keeps no answer: each request asks planOf, a long key too', async () => {
    const long = `free-${'k'.repeat(1_000)}`
    const { send, lookups } = setup({
      planCache: false,
      planOf: (apiKey: string) => {
        lookups.push(apiKey)
        return 'free'
      },
    })
    for (let i = 0; i < 3; i++) expect(await send(long)).toMatchObject({ kind: 'pass', plan: 'free' })
    expect(lookups).toEqual([long, long, long])
  })

  it('a key whose plan changes keeps its quota used this period, on the new plan’s limits, and no other key’s', async () => {
    let plan = 'free'
    const { send, advance } = setup({
      plans: {
        free: { rate: 10, burst: 50, quota: { limit: 10, period: 'day' } },
        team: { rate: 10, burst: 50, quota: { limit: 20, period: 'day' } },
      },
      planOf: (apiKey: string) => (apiKey === 'other' ? 'team' : plan),
    })
    // What is left in the rate bucket and in the quota, from the draft-8 header.
    const left = (o: { headers: Record<string, string> }) =>
      [...o.headers.ratelimit!.matchAll(/;r=(\d+)/g)].map((m) => Number(m[1]))
    for (let i = 0; i < 4; i++) await send('k')
    await send('other')
    expect(left(await send('k'))).toEqual([45, 5]) // 5 of 10 used
    plan = 'team'
    advance(61_000) // the cached plan expires: the next request asks planOf again
    const upgraded = await send('k')
    expect(upgraded.plan).toBe('team')
    expect(left(upgraded)).toEqual([49, 14]) // 6 of 20: the count carried over
    expect(left(await send('other'))).toEqual([49, 18])
  })

  it('the usage report: used and remaining per key, and a reset for support staff', async () => {
    const { send, handler } = setup()
    for (let i = 0; i < 7; i++) await send('key-pro')
    const usage = await handler.usage!.usage('key-pro')
    expect(usage).toEqual({
      apiKey: 'key-pro',
      plan: 'pro',
      quota: { limit: 5_000_000, used: 7, remaining: 4_999_993, resetMs: Date.UTC(2026, 3, 1) - START },
      rate: { limit: 500, remaining: 493, resetMs: 70 },
    })
    expect(await handler.usage!.usage('nobody')).toBeUndefined()
    expect(await handler.usage!.resetUsage('key-pro')).toBe(true)
    expect((await handler.usage!.usage('key-pro'))!.quota!.used).toBe(0)
  })

  it('keys are never stored in clear: the plan caller is the SHA-256 of the API key', async () => {
    const seen: string[] = []
    const memory = new MemoryStore()
    const { send } = setup({
      store: {
        consume: (a, k, c, n) => memory.consume(a, k, c, n),
        consumeAll: (items, n) => {
          seen.push(...items.map((i) => i.key))
          return memory.consumeAll(items, n)
        },
        peek: (a, k, c, n) => memory.peek(a, k, c, n),
        refund: (a, k, c, n) => memory.refund(a, k, c, n),
        reset: (a, k) => memory.reset(a, k),
        close: () => memory.close(),
      },
    })
    await send('key-free')
    expect(seen).toHaveLength(2)
    for (const key of seen) {
      expect(key).not.toContain('key-free')
      expect(key).toMatch(/^(rate|quota)\|\{apikey:[\w-]{22}\}$/)
    }
  })
})

describe('usage plan options', () => {
  const fails = (options: RateLimitOptions) => {
    try {
      createRateLimitHandler(options)
    } catch (error) {
      expect(error).toBeInstanceOf(RateLimitConfigError)
      return (error as RateLimitConfigError).message
    }
    throw new Error('expected a RateLimitConfigError')
  }
  const plans = { free: { rate: 10 } }
  it('are checked at creation', () => {
    expect(fails({ plans })).toContain('rateLimit.apiKey')
    expect(fails({ plans, apiKey: () => 'k' })).toContain('rateLimit.planOf')
    expect(fails({ plans, apiKey: () => 'k', planOf: () => 'free', anonymousPlan: 'gold' })).toContain(
      'one of the plans (free)',
    )
    expect(fails({ apiKey: () => 'k' })).toContain('left out unless `plans` is given')
    expect(fails({ plans: { free: { rate: -1 } }, apiKey: () => 'k', planOf: () => 'free' })).toContain(
      'rateLimit.plans.free.rate',
    )
    expect(
      fails({
        plans,
        apiKey: () => 'k',
        planOf: () => 'free',
        limits: [{ name: 'quota', algorithm: fixedWindow({ limit: 1, window: 1000 }) }],
      }),
    ).toContain("a name other than 'rate' and 'quota'")
  })
})

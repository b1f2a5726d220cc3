import { afterEach, describe, expect, it, vi } from 'vitest'
import {
  type Algorithm,
  fixedWindow,
  leakyBucket,
  MemoryStore,
  type RequestInfo,
  type Store,
} from '../../src/index.js'
import { createRateLimitHandler } from '../../src/internal.js'

const START = Date.UTC(2026, 0, 1, 12)
const req = (over: Partial<RequestInfo<any>> = {}): RequestInfo<any> => ({
  ip: '203.0.113.7',
  method: 'GET',
  route: '/things/:id',
  path: '/things/1',
  headers: {},
  native: { headers: {} as Record<string, string> },
  ...over,
})
const clock = () => {
  let now = START
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

/** The MemoryStore without `consumeAll`, so the handler takes core's consume-then-refund path, and with its keys recorded. */
function oneByOne(keys: string[] = []): Store {
  const memory = new MemoryStore()
  return {
    consume: (a: Algorithm, k: string, c: number, n?: number) => {
      keys.push(k)
      return memory.consume(a, k, c, n)
    },
    peek: (a, k, c, n) => memory.peek(a, k, c, n),
    refund: (a, k, c, n) => memory.refund(a, k, c, n),
    reset: (a, k) => memory.reset(a, k),
    close: () => memory.close(),
  }
}

afterEach(() => vi.restoreAllMocks())

describe('createRateLimitHandler', () => {
  it('with no options: 100 a minute per IP, sliding window counter, draft-6 headers', async () => {
    const handler = createRateLimitHandler()
    const outcome = await handler.handle(req())
    expect(outcome.kind).toBe('pass')
    expect(outcome.decision?.policy).toBe('ip')
    expect(outcome.headers['ratelimit-limit']).toBe('100')
    expect(outcome.headers['ratelimit-remaining']).toBe('99')
    expect(outcome.headers['ratelimit-policy']).toBe('100;w=60')
  })

  it('without an atomic consumeAll, a refusal still spends nothing in any policy', async () => {
    const c = clock()
    const handler = createRateLimitHandler({
      store: oneByOne(),
      clock: c.now,
      user: (r: { headers: Record<string, string> }) => r.headers['x-user'],
      limits: [
        { name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 3, window: '1m' }) },
        { name: 'user', key: 'user', algorithm: fixedWindow({ limit: 1, window: '1m' }) },
      ],
    })
    const as = (user: string) => req({ native: { headers: { 'x-user': user } } })
    expect((await handler.handle(as('a'))).kind).toBe('pass')
    const refused = await handler.handle(as('a'))
    expect(refused.kind).toBe('answer')
    expect(refused.decision?.policy).toBe('user')
    expect((await handler.handle(as('b'))).decisions[0]!.remaining).toBe(1)
  })

  it('keys carry the prefix, the policy and the caller in braces, escaped; long parts are hashed', async () => {
    const keys: string[] = []
    const handler = createRateLimitHandler({
      store: oneByOne(keys),
      prefix: 'api',
      key: ['user', 'endpoint'],
      user: () => `${'x'.repeat(300)}|ip:1.2.3.4`,
      algorithm: fixedWindow({ limit: 5, window: '1m' }),
    })
    await handler.handle(req())
    expect(keys).toHaveLength(1)
    expect(keys[0]!.length).toBeLessThanOrEqual(300)
    expect(keys[0]).toMatch(/^api:default\|\{user:%H[\w-]{43}\}\|endpoint:GET \/things\/:id$/)

    const short = createRateLimitHandler({ store: oneByOne(keys), prefix: 'api', limit: 5, window: '1m' })
    await short.handle(req())
    expect(keys[1]).toBe('api:ip|{ip:203.0.113.7}')
  })

  it("a user id equal to an address does not share that address's bucket", async () => {
    const handler = createRateLimitHandler({
      key: 'user',
      user: (r: { user?: string }) => r.user,
      limit: 1,
      window: '1m',
      clock: clock().now,
    })
    expect((await handler.handle(req())).kind).toBe('pass') // anonymous: keyed by 203.0.113.7
    expect((await handler.handle(req({ ip: '198.51.100.1', native: { user: '203.0.113.7' } }))).kind).toBe(
      'pass',
    )
    expect((await handler.handle(req())).kind).toBe('answer')
  })

  it('a refusal is a value: no error, a cached body, Retry-After and no-store', async () => {
    const handler = createRateLimitHandler({ limit: 1, window: '1m', clock: clock().now })
    await handler.handle(req())
    const a = await handler.handle(req())
    const b = await handler.handle(req())
    expect(a.kind).toBe('answer')
    expect(a.error).toBeUndefined()
    expect(a.status).toBe(429)
    expect(a.body).toBe(b.body)
    expect(JSON.parse(a.body!)).toEqual({
      error: 'rate_limited',
      message: 'Too many requests, retry in 120 seconds.',
      retryAfter: 120,
      policy: 'ip',
    })
    expect(a.headers['retry-after']).toBe('120')
    expect(a.headers['cache-control']).toBe('no-store')
  })

  it('message and handler options shape the refusal; a throwing handler leaves the default', async () => {
    const withMessage = createRateLimitHandler({
      limit: 1,
      message: (_r, info, d) => `${info.method} refused by ${d.policy}`,
    })
    await withMessage.handle(req())
    expect(JSON.parse((await withMessage.handle(req())).body!).message).toBe('GET refused by ip')

    const custom = createRateLimitHandler({
      limit: 1,
      handler: async () => ({
        status: 503,
        body: 'busy',
        contentType: 'text/plain',
        headers: { 'X-Why': 'busy' },
      }),
    })
    await custom.handle(req())
    const out = await custom.handle(req())
    expect([out.status, out.body, out.contentType, out.headers['x-why']]).toEqual([
      503,
      'busy',
      'text/plain',
      'busy',
    ])

    const errors: unknown[] = []
    const broken = createRateLimitHandler({
      limit: 1,
      onError: (e) => errors.push(e),
      handler: () => {
        throw new Error('oops')
      },
    })
    await broken.handle(req())
    const fallback = await broken.handle(req())
    expect(fallback.status).toBe(429)
    expect(JSON.parse(fallback.body!).error).toBe('rate_limited')
    expect(errors).toHaveLength(1)
  })

  it('shaping: the handler waits the largest delay of the policies, through the injected sleep', async () => {
    const sleeps: number[] = []
    const handler = createRateLimitHandler({
      clock: clock().now,
      sleep: async (ms) => {
        sleeps.push(ms)
      },
      limits: [
        {
          name: 'fast',
          algorithm: leakyBucket({ capacity: 5, leakRate: 10, interval: '1s', mode: 'shape' }),
        },
        { name: 'slow', algorithm: leakyBucket({ capacity: 5, leakRate: 2, interval: '1s', mode: 'shape' }) },
      ],
    })
    expect((await handler.handle(req())).delayMs).toBe(0)
    expect((await handler.handle(req())).delayMs).toBe(500)
    expect(sleeps).toEqual([500])
  })

  it('refunds on completion, once, by the response status', async () => {
    const c = clock()
    const failed = createRateLimitHandler({ limit: 2, skipFailedRequests: true, clock: c.now })
    expect(failed.refunds).toBe(true)
    const first = await failed.handle(req())
    failed.complete(first, 500)
    failed.complete(first, 500) // twice: refunded once
    const second = await failed.handle(req())
    failed.complete(second, 0) // the connection closed first: a failure
    const third = await failed.handle(req())
    expect(third.decisions[0]!.remaining).toBe(1)
    failed.complete(third, 200)
    expect((await failed.handle(req())).kind).toBe('pass')
    expect((await failed.handle(req())).kind).toBe('answer')

    expect(createRateLimitHandler().refunds).toBe(false)
  })

  it('dry run never blocks, not even a request with no address', async () => {
    const handler = createRateLimitHandler({ limit: 1, dryRun: true, onError: () => {} })
    await handler.handle(req())
    const over = await handler.handle(req())
    expect([over.kind, over.limited, over.headers['retry-after']]).toEqual(['pass', true, undefined])
    const noIp = await handler.handle(req({ ip: undefined }))
    expect(noIp.kind).toBe('pass')
    expect((noIp.error as { code: string }).code).toBe('ERR_FLOODGATE_NO_CLIENT_ADDRESS')
  })

  it('skip may be async; a throwing skip does not skip (the request is counted) and is reported', async () => {
    const handler = createRateLimitHandler({
      limit: 1,
      skip: async (r: { skip?: boolean }) => r.skip === true,
    })
    expect((await handler.handle(req({ native: { skip: true } }))).skipped).toBe(true)
    expect((await handler.handle(req({ native: { skip: true } }))).skipped).toBe(true)
    expect((await handler.handle(req())).kind).toBe('pass')
    expect((await handler.handle(req())).kind).toBe('answer')

    const errors: { code: string; option: string }[] = []
    const throwing = createRateLimitHandler({
      limit: 1,
      failMode: 'closed',
      onError: (e) => errors.push(e as never),
      skip: () => {
        throw new Error('bad skip')
      },
    })
    expect((await throwing.handle(req())).kind).toBe('pass')
    expect((await throwing.handle(req())).status).toBe(429)
    expect(errors.map((e) => [e.code, e.option])).toEqual([
      ['ERR_FLOODGATE_FUNCTION_FAILED', 'skip'],
      ['ERR_FLOODGATE_FUNCTION_FAILED', 'skip'],
    ])
  })

  it('an invalid cost from a cost function is an error, not a crash', async () => {
    const errors: unknown[] = []
    const handler = createRateLimitHandler({ cost: () => -1, onError: (e) => errors.push(e) })
    const outcome = await handler.handle(req())
    expect(outcome.kind).toBe('pass')
    expect((errors[0] as { code: string }).code).toBe('ERR_FLOODGATE_INVALID_COST')
  })

  it('without onError, the first error of each kind is a process warning, later ones are silent', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {})
    const down: Store = {
      consume: () => Promise.reject(new Error('down')),
      peek: () => Promise.reject(new Error('down')),
      refund: () => undefined,
      reset: () => undefined,
      close: () => undefined,
    }
    const handler = createRateLimitHandler({ store: down })
    for (let i = 0; i < 3; i++) expect((await handler.handle(req())).kind).toBe('pass')
    await handler.handle(req({ ip: undefined }))
    await handler.handle(req({ ip: 'garbage' }))
    expect(warn).toHaveBeenCalledTimes(2)
    expect(String(warn.mock.calls[0]![0])).toContain('down')
  })

  it('without onError, error codes a store makes up are warned about under at most 64 short string codes, and never fail a request', async () => {
    const warn = vi.spyOn(process, 'emitWarning')
    const codes: unknown[] = [7, { nested: true }, 'E'.repeat(15_000)]
    for (let i = 0; i < 100; i++) codes.push(`E_MADE_UP_${i}`)
    // A refund that fails is reported with the store's own error (a failed decision is wrapped in one code).
    const memory = new MemoryStore()
    let refunds = 0
    const store: Store = {
      consume: (a, k, c, now) => memory.consume(a, k, c, now),
      peek: (a, k, c, now) => memory.peek(a, k, c, now),
      refund: () => Promise.reject(Object.assign(new Error('down'), { code: codes[refunds++] })),
      reset: () => undefined,
      close: () => undefined,
    }
    const handler = createRateLimitHandler({ store, limit: 1_000, skipFailedRequests: true })
    for (let i = 0; i < codes.length; i++) {
      const outcome = await handler.handle(req())
      expect(outcome.kind).toBe('pass')
      handler.complete(outcome, 500)
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(refunds).toBe(codes.length)
    const warned = warn.mock.calls.map((call) => (call[1] as { code: unknown }).code)
    warn.mockRestore()
    expect(warned).toHaveLength(64)
    expect(warned[0]).toBe('ERR_FLOODGATE_STORE_FAILED') // for the numeric, object and 15 kB codes
    for (const code of warned) expect(typeof code === 'string' && code.length <= 64).toBe(true)
  })

  it('legacy headers use the clock for the epoch reset', async () => {
    const c = clock()
    c.advance(1_000)
    const handler = createRateLimitHandler({
      headers: 'legacy',
      algorithm: fixedWindow({ limit: 5, window: '10s' }),
      clock: c.now,
    })
    expect((await handler.handle(req())).headers['x-ratelimit-reset']).toBe(String((START + 10_000) / 1000))
  })

  it('two handlers sharing a store, a prefix and a policy share its counter; otherwise they do not', async () => {
    const store = new MemoryStore()
    const a = createRateLimitHandler({ store, algorithm: fixedWindow({ limit: 1, window: '1m' }) })
    const b = createRateLimitHandler({ store, algorithm: fixedWindow({ limit: 1, window: '1m' }) })
    const other = createRateLimitHandler({
      store,
      prefix: 'other',
      algorithm: fixedWindow({ limit: 1, window: '1m' }),
    })
    expect((await a.handle(req())).kind).toBe('pass')
    expect((await b.handle(req())).kind).toBe('answer')
    expect((await other.handle(req())).kind).toBe('pass')
  })
})

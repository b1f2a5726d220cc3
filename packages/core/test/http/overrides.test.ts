import { describe, expect, it } from 'vitest'
import { algorithmFromParams } from '../../src/algorithms/from-params.js'
import {
  type Algorithm,
  calendarQuota,
  fixedWindow,
  gcra,
  leakyBucket,
  MemoryStore,
  type Outcome,
  RateLimitConfigError,
  type RateLimitOptions,
  type RequestInfo,
  type Store,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '../../src/index.js'
import { createRateLimitHandler, type RateLimitHandler } from '../../src/internal.js'
import { requestFrom } from '../request-info.js'

/** A request from `ip` for `user` (read by the tests' `user` function from `native`). */
const as = (user: unknown, ip = '198.51.100.1'): RequestInfo<any> => ({
  ...requestFrom(ip),
  native: { user },
})

const decide = async (handler: RateLimitHandler<any>, info: RequestInfo<any>) =>
  (await handler.handle(info)) as Outcome

/** How many of `n` requests of `info` pass. */
async function passes(handler: RateLimitHandler<any>, info: RequestInfo<any>, n = 20): Promise<number> {
  let passed = 0
  for (let i = 0; i < n; i++) if (!(await decide(handler, info)).limited) passed++
  return passed
}

const limit = (n: number) => fixedWindow({ limit: n, window: '1h' })

function userLimiter(overrides: RateLimitOptions['overrides'], extra: RateLimitOptions = {}) {
  let now = 1_000_000
  const store = (extra.store as MemoryStore | undefined) ?? new MemoryStore({ clock: () => now })
  const handler = createRateLimitHandler({
    store,
    clock: () => now,
    key: 'user',
    user: (req: { user?: unknown }) => req.user as string,
    algorithm: limit(1),
    overrides,
    ...extra,
  })
  return { handler, store, advance: (ms: number) => (now += ms) }
}

describe('overrides: matching', () => {
  it('an exact identifier beats every pattern, a longer pattern beats a shorter one', async () => {
    const { handler } = userLimiter({
      alice: limit(3),
      '*@acme.com': limit(5),
      '*.com': limit(2),
      'alice*': limit(7),
    })
    expect(await passes(handler, as('alice'))).toBe(3)
    expect(await passes(handler, as('bob@acme.com'))).toBe(5)
    expect(await passes(handler, as('carol@example.com'))).toBe(2)
    expect(await passes(handler, as('alice2'))).toBe(7)
    expect(await passes(handler, as('dave'))).toBe(1)
  })

  it('patterns put stars anywhere, and match the identifier as the app gave it (never encoded)', async () => {
    const { handler } = userLimiter({ 'a|*{x}*%': limit(4), '*': limit(2), '7': limit(6) })
    expect(await passes(handler, as('a|b{x}c%'))).toBe(4)
    expect(await passes(handler, as('a%7Cb{x}c%'))).toBe(2) // the encoded form is another identifier
    expect(await passes(handler, as(7))).toBe(6) // a number is its decimal text
  })

  it('false takes the policy out of the request; a request no policy is left to limit is not counted', async () => {
    const { handler } = userLimiter({ healthcheck: false })
    for (let i = 0; i < 5; i++) {
      const outcome = await decide(handler, as('healthcheck'))
      expect(outcome).toMatchObject({ kind: 'pass', skipped: true, limited: false })
    }
    expect(await passes(handler, as('someone'))).toBe(1)
  })

  it('false on one of several policies: the others still decide, and the headers show only them', async () => {
    let now = 0
    const handler = createRateLimitHandler({
      store: new MemoryStore({ clock: () => now }),
      clock: () => now,
      user: (req: { user?: string }) => req.user,
      headers: 'draft-8',
      limits: [
        { name: 'ip', key: 'ip', algorithm: limit(3) },
        { name: 'user', key: 'user', algorithm: limit(1), overrides: { robot: false } },
      ],
    })
    const first = await decide(handler, as('robot'))
    expect(first.headers['ratelimit-policy']).toBe('"ip";q=3;w=3600')
    expect(await passes(handler, as('robot'))).toBe(2) // the ip policy's 3 in all
    now += 1
    const other = await decide(handler, as('human', '198.51.100.2'))
    expect(other.headers['ratelimit-policy']).toBe('"ip";q=3;w=3600, "user";q=1;w=3600')
  })

  it('the identifier of an ip policy is the normalised address, of a key function its value', async () => {
    let now = 0
    const handler = createRateLimitHandler({
      store: new MemoryStore({ clock: () => now }),
      clock: () => now,
      limits: [
        {
          name: 'ip',
          key: 'ip',
          algorithm: limit(1),
          overrides: { '10.1.*': limit(4), '2001:db8:0:1::/64': limit(3) },
        },
        {
          name: 'tenant',
          key: (req: { tenant?: unknown }) => req.tenant as string,
          algorithm: limit(100),
          overrides: { 'big,eu': limit(200), small: limit(2) },
        },
      ],
    })
    const from = (ip: string, tenant?: unknown): RequestInfo<any> => ({
      ...requestFrom(ip),
      native: { tenant },
    })
    expect(await passes(handler, from('10.1.2.3'))).toBe(4)
    expect(await passes(handler, from('::ffff:10.1.9.9'))).toBe(4)
    expect(await passes(handler, from('10.2.0.1'))).toBe(1)
    expect(await passes(handler, from('2001:db8:0:1::77'))).toBe(3)
    // The tenant policy allows 2 for 'small', whatever the address allows.
    now += 1
    const tenantOnly = createRateLimitHandler({
      store: new MemoryStore(),
      key: (req: { tenant?: unknown }) => req.tenant as never,
      algorithm: limit(1),
      overrides: { 'big,eu': limit(5), small: limit(2) },
    })
    expect(await passes(tenantOnly, from('198.51.100.9', 'small'))).toBe(2)
    expect(await passes(tenantOnly, from('198.51.100.9', ['big', 'eu']))).toBe(5)
  })

  it('a user policy falls back to the address for a request with no user: patterns of addresses apply', async () => {
    const { handler } = userLimiter({ '203.0.113.*': limit(3) })
    expect(await passes(handler, as(undefined, '203.0.113.5'))).toBe(3)
    expect(await passes(handler, as('203.0.113.5', '198.51.100.3'))).toBe(3) // a user id that looks alike
  })

  it('the headers show the override algorithm quota', async () => {
    const { handler } = userLimiter(
      { vip: slidingWindowCounter({ limit: 500, window: '1m' }) },
      { headers: 'draft-6' },
    )
    const vip = await decide(handler, as('vip'))
    expect(vip.headers).toMatchObject({ 'ratelimit-limit': '500', 'ratelimit-policy': '500;w=60' })
    const plain = await decide(handler, as('plain'))
    expect(plain.headers).toMatchObject({ 'ratelimit-limit': '1', 'ratelimit-policy': '1;w=3600' })
  })

  it('a policy without overrides is decided as before: in the same tick on the MemoryStore', () => {
    const { handler } = userLimiter({ vip: limit(5) })
    expect(handler.handle(as('vip'))).not.toBeInstanceOf(Promise)
    expect(handler.handle(as('other'))).not.toBeInstanceOf(Promise)
  })
})

describe('overrides: with usage plans', () => {
  it('the plan gate and the whole set count with the overrides of the limits', async () => {
    const handler = createRateLimitHandler({
      store: new MemoryStore(),
      limits: [
        {
          name: 'ip',
          key: 'ip',
          algorithm: limit(1),
          overrides: { '198.51.100.1': limit(3), '198.51.100.2': false },
        },
      ],
      plans: { free: { rate: 1000, burst: 1000 } },
      apiKey: (_req: unknown, info: RequestInfo) => info.headers['x-api-key'] as string,
      planOf: async () => 'free',
    })
    const from = (ip: string, key: string): RequestInfo<any> => ({
      ...requestFrom(ip),
      headers: { 'x-api-key': key },
    })
    expect(await passes(handler, from('198.51.100.1', 'k1'), 5)).toBe(3)
    expect(await passes(handler, from('198.51.100.3', 'k2'), 5)).toBe(1)
    expect(await passes(handler, from('198.51.100.2', 'k3'), 5)).toBe(5)
  })
})

describe('overrides: state', () => {
  it("an override's count is its own: switching a caller's limit carries nothing over, in either direction", async () => {
    const { handler } = userLimiter({}, { algorithm: limit(2) })
    expect(await passes(handler, as('alice'))).toBe(2)
    // The same algorithm as an override: a key scope of its own, so a fresh count.
    await handler.overrides.set('user', 'alice', limit(2))
    expect(await passes(handler, as('alice'))).toBe(2)
    // Back to the policy: the count it had is still there.
    await handler.overrides.delete('user', 'alice')
    expect(await passes(handler, as('alice'))).toBe(0)
  })

  it('a pattern counts each caller on its own key: one caller does not spend another', async () => {
    const { handler } = userLimiter({ '*@acme.com': limit(2) })
    expect(await passes(handler, as('a@acme.com'))).toBe(2)
    expect(await passes(handler, as('b@acme.com'))).toBe(2)
  })

  it('a window passes on the virtual clock for an override as for the policy', async () => {
    const { handler, advance } = userLimiter({ alice: limit(2) })
    expect(await passes(handler, as('alice'))).toBe(2)
    advance(3_600_000)
    expect(await passes(handler, as('alice'))).toBe(2)
  })
})

describe('overrides: at runtime', () => {
  it('set, delete and list, seen at once by every middleware over the same MemoryStore and prefix', async () => {
    const store = new MemoryStore()
    const a = userLimiter({}, { store })
    const b = userLimiter({}, { store })
    await decide(b.handler, as('warm')) // b watches the store from its first request
    await a.handler.overrides.set('user', 'alice', limit(3))
    await a.handler.overrides.set('user', '*@bots.example', false)
    expect(await passes(b.handler, as('alice'))).toBe(3)
    expect((await decide(b.handler, as('x@bots.example'))).skipped).toBe(true)
    expect(await b.handler.overrides.list()).toEqual([
      {
        policy: 'user',
        pattern: 'alice',
        override: expect.objectContaining({ id: limit(3).id }),
        source: 'runtime',
      },
      { policy: 'user', pattern: '*@bots.example', override: false, source: 'runtime' },
    ])
    await a.handler.overrides.delete('user', 'alice')
    expect(await passes(b.handler, as('alice'))).toBe(1)
  })

  it('a runtime override replaces the option one for its pattern; deleting it brings the option back', async () => {
    const { handler } = userLimiter({ alice: limit(3) })
    await handler.overrides.set('user', 'alice', limit(5))
    expect(await handler.overrides.list()).toEqual([
      {
        policy: 'user',
        pattern: 'alice',
        override: expect.objectContaining({ id: limit(5).id }),
        source: 'runtime',
      },
    ])
    expect(await passes(handler, as('alice'))).toBe(5)
    await handler.overrides.delete('user', 'alice')
    expect((await handler.overrides.list())[0]).toMatchObject({ pattern: 'alice', source: 'options' })
  })

  it("the first request waits for a shared store's first read of the runtime overrides, later ones do not", async () => {
    const memory = new MemoryStore()
    memory.writeSettings('overrides:', JSON.stringify(['user', 'alice']), JSON.stringify(limit(3)))
    class SharedStore extends MemoryStore {
      override watchSettings(name: string, watcher: Parameters<MemoryStore['watchSettings']>[1]) {
        setImmediate(() => watcher.change(memory.readSettings(name)))
        return () => {}
      }
    }
    const { handler } = userLimiter({}, { store: new SharedStore() })
    const first = handler.handle(as('alice'))
    expect(first).toBeInstanceOf(Promise)
    expect((await first).headers['ratelimit-limit']).toBe('3')
    const second = handler.handle(as('alice'))
    expect(second).not.toBeInstanceOf(Promise)
    expect(await passes(handler, as('alice'))).toBe(1)
  })

  it('another prefix has overrides of its own', async () => {
    const store = new MemoryStore()
    const a = userLimiter({}, { store, prefix: 'a' })
    const b = userLimiter({}, { store, prefix: 'b' })
    await a.handler.overrides.set('user', 'alice', limit(3))
    expect(await passes(a.handler, as('alice'))).toBe(3)
    expect(await passes(b.handler, as('alice'))).toBe(1)
  })

  it('checks every argument before writing: policy, pattern, algorithm, and the store', async () => {
    const { handler } = userLimiter({})
    const fails = (fn: () => unknown, message: RegExp) => {
      expect(fn).toThrow(RateLimitConfigError)
      expect(fn).toThrow(message)
    }
    fails(() => handler.overrides.set('nope', 'alice', limit(2)), /overrides\.set\(policy\).*'user'.*'nope'/)
    fails(() => handler.overrides.set('user', '', limit(2)), /overrides\.set\(pattern\)/)
    fails(() => handler.overrides.set('user', 'x'.repeat(257), limit(2)), /1 to 256 characters/)
    fails(() => handler.overrides.set('user', 'alice', {} as Algorithm), /an algorithm made by a factory/)
    fails(() => handler.overrides.set('user', 'alice', true as never), /or false/)
    const plain = createRateLimitHandler({ store: new MemoryStore() })
    fails(() => plain.overrides.set('ip', 'alice', limit(2)), /give a policy `overrides: \{\}`/)
    expect(await plain.overrides.list()).toEqual([])
    expect(await handler.overrides.list()).toEqual([])
  })

  it('a store without settings: the option overrides apply, and set says which store cannot keep them', async () => {
    const memory = new MemoryStore()
    const bare: Store = {
      consume: (a, k, c, n) => memory.consume(a, k, c, n),
      peek: (a, k, c, n) => memory.peek(a, k, c, n),
      refund: (a, k, c, n) => memory.refund(a, k, c, n),
      reset: (a, k) => memory.reset(a, k),
      close: () => memory.close(),
    }
    class BareStore {}
    Object.setPrototypeOf(bare, BareStore.prototype)
    const { handler } = userLimiter({ alice: limit(3) }, { store: bare })
    expect(await passes(handler, as('alice'))).toBe(3)
    expect(() => handler.overrides.set('user', 'bob', limit(2))).toThrow(/BareStore has no writeSettings/)
  })

  it('the store checks the algorithm of an override, at creation and at set', () => {
    class WindowsOnly extends MemoryStore {
      checkAlgorithm(algorithm: Algorithm): void {
        if (algorithm.kind === 'token-bucket')
          throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', 'algorithm', 'tb', 'a window')
      }
    }
    const bucket = tokenBucket({ capacity: 5, refillRate: 1 })
    expect(() => userLimiter({ alice: bucket }, { store: new WindowsOnly() })).toThrow(/a window/)
    const { handler } = userLimiter({}, { store: new WindowsOnly() })
    expect(() => handler.overrides.set('user', 'alice', bucket)).toThrow(/a window/)
  })
})

describe('overrides: options', () => {
  const fails = (options: RateLimitOptions, message: RegExp) => {
    expect(() => createRateLimitHandler({ store: new MemoryStore(), ...options })).toThrow(
      RateLimitConfigError,
    )
    expect(() => createRateLimitHandler({ store: new MemoryStore(), ...options })).toThrow(message)
  }

  it('refuses bad patterns and algorithms, naming where they are', () => {
    fails({ overrides: { '': limit(2) } }, /rateLimit\.overrides key/)
    fails({ overrides: { ['x'.repeat(300)]: limit(2) } }, /1 to 256 characters/)
    fails({ overrides: { alice: 5 as never } }, /rateLimit\.overrides\['alice'\].*or false/)
    fails({ overrides: [] as never }, /identifier patterns/)
    fails(
      { limits: [{ name: 'a', algorithm: limit(1), overrides: { bob: true as never } }] },
      /rateLimit\.limits\[0\]\.overrides\['bob'\]/,
    )
  })

  it('refuses overrides where no caller is matched: global and endpoint keys, tiers, no short-form policy', () => {
    fails({ key: 'global', overrides: { a: limit(2) } }, /keyed per caller/)
    fails({ key: ['endpoint', 'global'], overrides: {} }, /keyed per caller/)
    fails(
      { tiers: [{ name: 't', algorithm: limit(5), overrides: {} }] },
      /tiers\.0\.overrides|tiers\[0\]\.overrides|left out on tiers/,
    )
    fails({ limits: [{ algorithm: limit(1) }], overrides: {} }, /left out when `limits` is given/)
  })

  it('an endpoint key with a caller matches that caller', async () => {
    const handler = createRateLimitHandler({
      store: new MemoryStore(),
      key: ['endpoint', 'ip'],
      algorithm: limit(1),
      overrides: { '198.51.100.1': limit(2) },
    })
    expect(await passes(handler, requestFrom('198.51.100.1'))).toBe(2)
  })
})

describe('algorithmFromParams', () => {
  it('makes every factory algorithm again from its kind and parameters, with the same id', () => {
    const algorithms = [
      fixedWindow({ limit: 5, window: '10s' }),
      slidingWindowCounter({ limit: 100, window: '250ms' }),
      slidingWindowLog({ limit: 3, window: '1m' }),
      tokenBucket({ capacity: 7, refillRate: 3, interval: '100ms' }),
      leakyBucket({ capacity: 5, leakRate: 3, interval: '1s', mode: 'shape', maxDelay: '2s' }),
      leakyBucket({ capacity: 5, leakRate: 0.5 }),
      gcra({ rate: 3, period: '1s', burst: 4 }),
      gcra({ rate: 7, period: '1m' }),
      calendarQuota({ limit: 5, period: 'month', utcOffset: '-05:30' }),
    ]
    for (const algorithm of algorithms) {
      const made = algorithmFromParams({ kind: algorithm.kind, params: { ...algorithm.params } })
      expect(made.id).toBe(algorithm.id)
      expect(made.params).toEqual(algorithm.params)
      expect(made.limit).toBe(algorithm.limit)
    }
  })

  it('refuses a kind or parameters no factory gives', () => {
    expect(() => algorithmFromParams({ kind: 'nope' as never, params: {} })).toThrow(RateLimitConfigError)
    expect(() => algorithmFromParams({ kind: 'fixed-window', params: { limit: -1, windowMs: 5 } })).toThrow(
      RateLimitConfigError,
    )
  })
})

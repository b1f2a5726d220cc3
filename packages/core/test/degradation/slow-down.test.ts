// slowDown in core: delays that grow by `delay` past `after`, capped by `maxDelay`, a count that starts again
// with each window, delay functions, never a refusal, a store that fails delaying nobody, clients that leave
// while they wait, and options checked at creation; on a virtual clock with virtual timers (no sleeps).
import { describe, expect, it } from 'vitest'
import type { SlowDownOptions } from '../../src/degradation/slow-down/options.js'
import type { SlowDownOutcome, SlowDownPass } from '../../src/degradation/slow-down/outcome.js'
import type { RequestInfo, Store } from '../../src/index.js'
import { MemoryStore, RateLimitConfigError } from '../../src/index.js'
import { createSlowDown } from '../../src/internal.js'
import { virtualTime } from './virtual-time.js'

type Req = { user?: string }
/** 2026-01-01T12:00:00Z: aligned to every window here. */
const START = Date.UTC(2026, 0, 1, 12)

const info = (ip: string | undefined = '203.0.113.1', req: Req = {}): RequestInfo<Req> => ({
  ip,
  method: 'GET',
  route: '/login',
  path: '/login',
  headers: {},
  native: req,
})

const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

function setup(over: Partial<SlowDownOptions<Req>> = {}) {
  const t = virtualTime(START)
  const errors: { code?: string; option?: string }[] = []
  const slow = createSlowDown<Req>({
    after: 2,
    delay: '1s',
    clock: t.clock,
    timers: t.timers,
    onError: (e) => errors.push(e as { code?: string }),
    ...over,
  })
  /** Enter a request; `seen()` is its outcome once it has settled, `undefined` while it waits. */
  const enter = (request = info()) => {
    const entry = slow.enter(request)
    let outcome: SlowDownOutcome | undefined
    const sync = !(entry.outcome instanceof Promise)
    Promise.resolve(entry.outcome).then((o) => {
      outcome = o
    })
    return { ...entry, sync, seen: () => outcome }
  }
  return { slow, t, errors, enter }
}

describe('slowDown (core)', () => {
  it('lets the first `after` requests go at once, in this tick; each later one waits `delay` more than the one before', async () => {
    const { enter, t } = setup()
    const first = enter()
    const second = enter()
    expect(first.sync && second.sync).toBe(true)
    expect((first.outcome as SlowDownPass).slowDown).toEqual({
      limit: 2,
      used: 1,
      remaining: 1,
      reset: 60,
      delay: 0,
    })
    expect((second.outcome as SlowDownPass).slowDown).toEqual({
      limit: 2,
      used: 2,
      remaining: 0,
      reset: 60,
      delay: 0,
    })
    expect((second.outcome as SlowDownPass).headers).toEqual({})

    const third = enter()
    await settle()
    expect(third.seen()).toBeUndefined()
    t.advance(999)
    await settle()
    expect(third.seen()).toBeUndefined()
    t.advance(1)
    await settle()
    expect(third.seen()).toEqual({
      kind: 'pass',
      headers: { 'floodgate-delay': '1000' },
      slowDown: { limit: 2, used: 3, remaining: 0, reset: 59, delay: 1000 },
    })

    const fourth = enter()
    await settle()
    t.advance(1999)
    await settle()
    expect(fourth.seen()).toBeUndefined()
    t.advance(1)
    await settle()
    expect((fourth.seen() as SlowDownPass).slowDown?.delay).toBe(2000)
  })

  it('never delays longer than maxDelay, and never refuses', async () => {
    const { enter, t } = setup({ after: 0, delay: '1s', maxDelay: '3s', window: '1h' })
    const waits: number[] = []
    for (let i = 0; i < 50; i++) {
      const e = enter()
      await settle()
      t.advance(3000)
      await settle()
      const outcome = e.seen() as SlowDownPass
      expect(outcome.kind).toBe('pass')
      waits.push(outcome.slowDown!.delay)
    }
    expect(waits.slice(0, 5)).toEqual([1000, 2000, 3000, 3000, 3000])
    expect(new Set(waits.slice(2))).toEqual(new Set([3000]))
  })

  it('starts the count again when the window turns', async () => {
    const { enter, t } = setup({ after: 1, window: '1m' })
    expect((enter().outcome as SlowDownPass).slowDown?.delay).toBe(0)
    const second = enter()
    await settle()
    t.advance(1000)
    await settle()
    expect((second.seen() as SlowDownPass).slowDown).toMatchObject({ used: 2, delay: 1000 })
    t.advance(59_000) // 12:01:00: a new window
    const fresh = enter()
    expect(fresh.sync).toBe(true)
    expect((fresh.outcome as SlowDownPass).slowDown).toEqual({
      limit: 1,
      used: 1,
      remaining: 0,
      reset: 60,
      delay: 0,
    })
  })

  it('a delay function gets the request number and returns the whole delay, capped; it may be async', async () => {
    const counts: number[] = []
    const { enter, t } = setup({
      after: 1,
      maxDelay: '5s',
      delay: (count, req) => {
        counts.push(count)
        return req.user === 'async' ? Promise.resolve(count * 100) : 2 ** count * 1000
      },
    })
    enter()
    const second = enter()
    const third = enter()
    const fourth = enter(info('203.0.113.1', { user: 'async' }))
    await settle()
    expect(counts).toEqual([2, 3, 4])
    t.advance(400)
    await settle()
    expect((fourth.seen() as SlowDownPass).slowDown?.delay).toBe(400)
    expect(second.seen()).toBeUndefined()
    t.advance(5000)
    await settle()
    expect((second.seen() as SlowDownPass).slowDown?.delay).toBe(4000)
    expect((third.seen() as SlowDownPass).slowDown?.delay).toBe(5000) // 8000, capped
  })

  it('a delay function that throws or returns nonsense delays nothing, reported to onError', async () => {
    let value: unknown = Number.NaN
    const { enter, errors } = setup({
      after: 0,
      delay: () => {
        if (value === 'throw') throw new Error('lookup failed')
        return value as number
      },
    })
    const nan = enter()
    await settle()
    expect((nan.seen() as SlowDownPass).slowDown?.delay).toBe(0)
    value = 'throw'
    const thrown = enter()
    await settle()
    expect((thrown.seen() as SlowDownPass).slowDown?.delay).toBe(0)
    expect(errors.map((e) => [e.code, e.option])).toEqual([
      ['ERR_FLOODGATE_INVALID_DELAY', 'delay'],
      ['ERR_FLOODGATE_FUNCTION_FAILED', 'delay'],
    ])
  })

  it('counts each client apart by default, and per key function when given', async () => {
    const { enter } = setup({ after: 1 })
    expect((enter(info('203.0.113.1')).outcome as SlowDownPass).slowDown?.used).toBe(1)
    expect((enter(info('203.0.113.2')).outcome as SlowDownPass).slowDown?.used).toBe(1)
    expect((enter(info('2001:db8::1')).outcome as SlowDownPass).slowDown?.used).toBe(1)
    // the same /64
    const same64 = enter(info('2001:db8::2'))
    await settle()
    expect(same64.sync).toBe(false) // delayed: the second of its /64

    const byUser = setup({ after: 1, key: (req) => req.user })
    expect((byUser.enter(info('203.0.113.1', { user: 'ann' })).outcome as SlowDownPass).slowDown?.used).toBe(
      1,
    )
    expect((byUser.enter(info('203.0.113.9', { user: 'bob' })).outcome as SlowDownPass).slowDown?.used).toBe(
      1,
    )
    // no user: counted by the address
    expect((byUser.enter(info('203.0.113.1')).outcome as SlowDownPass).slowDown?.used).toBe(1)
  })

  it('an unknown client address is never a shared key: the request goes on at once, reported', () => {
    const { enter, errors } = setup({ after: 0 })
    const e = enter(info(''))
    expect(e.sync).toBe(true)
    expect(e.outcome).toEqual({ kind: 'pass', headers: {}, slowDown: undefined })
    expect(errors.map((x) => x.code)).toEqual(['ERR_FLOODGATE_NO_CLIENT_ADDRESS'])
  })

  it.each(['throw', 'reject'] as const)(
    'a store that fails (%s) delays nobody; the failure goes to onError',
    async (how) => {
      const fail = (): any => {
        if (how === 'throw') throw new Error('store is down')
        return Promise.reject(new Error('store is down'))
      }
      const broken: Store = { consume: fail, peek: fail, refund: fail, reset: fail, close: () => undefined }
      const { enter, errors, t } = setup({ after: 0, store: broken })
      const e = enter()
      await settle()
      expect(e.seen()).toEqual({ kind: 'pass', headers: {}, slowDown: undefined })
      expect(t.timers.pending).toBe(0)
      expect(errors.map((x) => x.code)).toEqual(['ERR_FLOODGATE_STORE_FAILED'])
    },
  )

  it('a client that leaves while it waits stops waiting at once: gone, its timer cleared', async () => {
    const { enter, slow, t } = setup({ after: 0 })
    const e = enter()
    await settle()
    expect(slow.stats().waiting).toBe(1)
    expect(t.timers.pending).toBe(1)
    e.leave()
    await settle()
    expect(e.seen()).toEqual({ kind: 'gone' })
    expect(t.timers.pending).toBe(0)
    expect(slow.stats().waiting).toBe(0)
    e.leave() // twice: nothing
  })

  it('a client that leaves while its request is being counted is never delayed, nor its delay function called', async () => {
    let called = 0
    const memory = new MemoryStore()
    const slowStore: Store = {
      consume: (a, k, c, n) => Promise.resolve(memory.consume(a, k, c, n)),
      peek: (a, k, c, n) => memory.peek(a, k, c, n),
      refund: (a, k, c, n) => memory.refund(a, k, c, n),
      reset: (a, k) => memory.reset(a, k),
      close: () => undefined,
    }
    const { enter, t } = setup({
      after: 0,
      store: slowStore,
      delay: () => {
        called++
        return 1000
      },
    })
    const e = enter()
    e.leave()
    await settle()
    expect(e.seen()).toEqual({ kind: 'gone' })
    expect(called).toBe(0)
    expect(t.timers.pending).toBe(0)
  })

  it('close lets every waiting request go on at once', async () => {
    const { enter, slow, t } = setup({ after: 0 })
    const a = enter()
    const b = enter()
    await settle()
    expect(slow.stats().waiting).toBe(2)
    slow.close()
    await settle()
    expect(a.seen()?.kind).toBe('pass')
    expect(b.seen()?.kind).toBe('pass')
    expect(t.timers.pending).toBe(0)
  })

  it('headers: the window as RateLimit headers when asked, and Floodgate-Delay unless turned off', async () => {
    const { enter, t } = setup({ after: 1, headers: 'draft-6' })
    expect((enter().outcome as SlowDownPass).headers).toEqual({
      'ratelimit-limit': '1',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '60',
      'ratelimit-policy': '1;w=60',
    })
    const second = enter()
    await settle()
    t.advance(1000)
    await settle()
    expect((second.seen() as SlowDownPass).headers).toMatchObject({
      'ratelimit-remaining': '0',
      'floodgate-delay': '1000',
    })
    const quiet = setup({ after: 0, delayHeader: false })
    const q = quiet.enter()
    await settle()
    quiet.t.advance(1000)
    await settle()
    expect((q.seen() as SlowDownPass).headers).toEqual({})
  })

  it.each([
    [{ after: -1 }, 'slowDown.after', 'a whole number >= 0'],
    [{ after: 1.5 }, 'slowDown.after', 'a whole number >= 0'],
    [{ delay: 'fast' }, 'slowDown.delay', "a duration like '500ms'"],
    [{ delay: 0 }, 'slowDown.delay', "a duration like '500ms'"],
    [{ maxDelay: -5 }, 'slowDown.maxDelay', "a duration like '10s'"],
    [{ window: '1 parsec' }, 'slowDown.window', "a duration like '250ms'"],
    [{ key: 'user' }, 'slowDown.key', "'ip', 'endpoint', 'global'"],
    [{ headers: 'draft-9' }, 'slowDown.headers', "one of 'draft-6'"],
    [{ prefix: 'a|b' }, 'slowDown.prefix', 'a string without |'],
    [{ store: {} }, 'slowDown.store', 'a store'],
    [{ delayAfter: 5 }, 'slowDown.delayAfter', 'known option'],
  ])(
    'refuses %o at creation, naming the option, the value and what is allowed',
    (options, option, expected) => {
      const make = () => createSlowDown(options as SlowDownOptions)
      expect(make).toThrow(RateLimitConfigError)
      try {
        make()
      } catch (error) {
        expect((error as RateLimitConfigError).option).toBe(option)
        expect((error as Error).message).toContain(expected)
      }
    },
  )

  it('accepts maxDelay: Infinity, and works with no options at all', () => {
    expect(() => createSlowDown({ maxDelay: Number.POSITIVE_INFINITY })).not.toThrow()
    const slow = createSlowDown()
    expect((slow.enter(info()).outcome as SlowDownPass).slowDown).toMatchObject({
      limit: 1,
      used: 1,
      delay: 0,
    })
  })
})

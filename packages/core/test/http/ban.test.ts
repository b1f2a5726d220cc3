import { describe, expect, it } from 'vitest'
import type { BanInfo } from '../../src/http/options/types.js'
import {
  fixedWindow,
  MemoryStore,
  type Outcome,
  RateLimitConfigError,
  type RateLimitOptions,
  type RequestInfo,
  type Store,
} from '../../src/index.js'
import { createRateLimitHandler, type RateLimitHandler, requestOutcome } from '../../src/internal.js'
import { requestFrom } from '../request-info.js'

const decide = async (handler: RateLimitHandler<any>, info: RequestInfo<any>) =>
  (await handler.handle(info)) as Outcome

/** A handler on a virtual clock: 2 requests a minute per IP, banned for 10 minutes after 3 refusals in 1 minute. */
function banning(options: RateLimitOptions = {}) {
  let now = Date.UTC(2030, 0, 1)
  const bans: BanInfo[] = []
  const handler = createRateLimitHandler({
    limit: 2,
    window: '1m',
    ban: { after: 3, within: '1m', for: '10m' },
    clock: () => now,
    onBanned: (_req, ban) => bans.push(ban),
    ...options,
  })
  return { handler, bans, advance: (ms: number) => (now += ms) }
}

describe('bans', () => {
  it('after `after` refusals within `within`, the key gets 403 banned with Retry-After until `for` has passed', async () => {
    const { handler, bans, advance } = banning()
    const ip = requestFrom('203.0.113.7')
    expect((await decide(handler, ip)).kind).toBe('pass')
    expect((await decide(handler, ip)).kind).toBe('pass')
    expect((await decide(handler, ip)).status).toBe(429)
    expect((await decide(handler, ip)).status).toBe(429)
    const third = await decide(handler, ip)
    expect(third).toMatchObject({ status: 403, banned: true, limited: true })
    expect(third.headers).toEqual({ 'retry-after': '600', 'cache-control': 'no-store' })
    expect(JSON.parse(third.body!)).toEqual({
      error: 'banned',
      message: 'Too many refused requests; banned for 600 seconds.',
      retryAfter: 600,
      policy: 'ip',
    })
    expect(requestOutcome(third)).toBe('banned')
    expect(bans).toHaveLength(1)
    expect(bans[0]).toMatchObject({ policy: 'ip', forMs: 600_000 })
    // The window is over, yet the ban holds; it counts down, and onBanned is not called again.
    advance(120_000)
    const later = await decide(handler, ip)
    expect(later.status).toBe(403)
    expect(later.headers['retry-after']).toBe('480')
    expect(bans).toHaveLength(1)
    // Another client is not banned.
    expect((await decide(handler, requestFrom('203.0.113.8'))).kind).toBe('pass')
    advance(480_000)
    expect((await decide(handler, ip)).kind).toBe('pass')
  })

  it('refusals further apart than `within` do not add up', async () => {
    const { handler, advance } = banning({ limit: 1, ban: { after: 2, within: '10s', for: '1m' } })
    const ip = requestFrom('198.51.100.1')
    expect((await decide(handler, ip)).kind).toBe('pass')
    expect((await decide(handler, ip)).status).toBe(429)
    advance(10_000)
    expect((await decide(handler, ip)).status).toBe(429)
    advance(1_000)
    expect((await decide(handler, ip)).status).toBe(403)
  })

  it('a banned request spends nothing and counts nothing', async () => {
    const store = new MemoryStore()
    const { handler, advance } = banning({ store, limit: 1, ban: { after: 1, within: '1m', for: '1m' } })
    const ip = requestFrom('198.51.100.2')
    expect((await decide(handler, ip)).kind).toBe('pass')
    expect((await decide(handler, ip)).status).toBe(403)
    for (let i = 0; i < 5; i++) expect((await decide(handler, ip)).status).toBe(403)
    advance(120_000)
    // The windows turned and the ban ended: a full quota, no refusal carried over.
    expect((await decide(handler, ip)).kind).toBe('pass')
    expect((await decide(handler, ip)).status).toBe(403)
  })

  it('unban(address) lifts the ban at once, and the count starts again', async () => {
    const { handler, bans } = banning({ limit: 1, ban: { after: 2, within: '1m', for: '1h' } })
    const ip = requestFrom('2001:db8::1')
    await decide(handler, ip)
    await decide(handler, ip)
    expect((await decide(handler, ip)).status).toBe(403)
    await handler.unban('2001:db8::ffff') // the same /64
    expect((await decide(handler, ip)).status).toBe(429)
    expect((await decide(handler, ip)).status).toBe(403)
    expect(bans).toHaveLength(2)
  })

  it('unban takes the key as the app knows it: a user id, a key function value, an array for several parts', async () => {
    let now = 0
    const handler = createRateLimitHandler({
      clock: () => now,
      user: (req: { user?: string }) => req.user,
      limits: [
        {
          name: 'user',
          key: 'user',
          algorithm: fixedWindow({ limit: 1, window: '1m' }),
          ban: { after: 2, within: '1m', for: '1h' },
        },
        {
          name: 'export',
          key: ['user', 'endpoint'],
          algorithm: fixedWindow({ limit: 5, window: '1m' }),
          ban: { after: 1, within: '1m', for: '1h' },
        },
      ],
    })
    const alice: RequestInfo<any> = {
      ...requestFrom('192.0.2.1'),
      route: '/export',
      native: { user: 'alice' },
    }
    expect((await decide(handler, alice)).kind).toBe('pass')
    expect((await decide(handler, alice)).status).toBe(429)
    expect((await decide(handler, alice)).status).toBe(403)
    await handler.unban('alice', { policy: 'user' })
    now += 1 // the same window: the user policy refuses again (429), and its second refusal bans again
    expect((await decide(handler, alice)).status).toBe(429)
    expect((await decide(handler, alice)).status).toBe(403)
    await handler.unban('alice')
    expect((await decide(handler, alice)).status).toBe(429)
    await expect(handler.unban(['alice', 'GET /export'], { policy: 'export' })).resolves.toBeUndefined()
    await expect(handler.unban('alice', { policy: 'nope' })).rejects.toThrow(RateLimitConfigError)
    await expect(handler.unban('alice', { policy: 'export' })).rejects.toThrow(/unban.key/)
  })

  it('onBanned is called once per ban, on the request that started it; dry run lets it through', async () => {
    const { handler, bans } = banning({ limit: 1, dryRun: true, ban: { after: 1, within: '1m', for: '1m' } })
    const ip = requestFrom('198.51.100.3')
    await decide(handler, ip)
    const shadow = await decide(handler, ip)
    expect(shadow).toMatchObject({ kind: 'pass', limited: true, banned: true })
    expect(bans).toHaveLength(1)
    expect((await decide(handler, ip)).kind).toBe('pass')
    expect(bans).toHaveLength(1)
  })

  it('the answer follows `format`', async () => {
    const { handler } = banning({
      limit: 1,
      format: 'problem+json',
      ban: { after: 1, within: '1m', for: '30s' },
    })
    const ip = requestFrom('198.51.100.4')
    await decide(handler, ip)
    const banned = await decide(handler, ip)
    expect(banned.contentType).toBe('application/problem+json')
    expect(JSON.parse(banned.body!)).toMatchObject({
      title: 'Forbidden',
      status: 403,
      retryAfter: 30,
      policy: 'ip',
    })
  })

  it('options are checked at creation: after, within, for, a store that keeps bans', () => {
    const bad = (ban: unknown, message: RegExp) =>
      expect(() => createRateLimitHandler({ ban: ban as never })).toThrow(message)
    bad({ after: 0, within: '1m', for: '1h' }, /ban\.after.*whole number of refusals >= 1/)
    bad({ after: 1.5, within: '1m', for: '1h' }, /ban\.after/)
    bad({ after: 3, within: 'soon', for: '1h' }, /ban\.within.*duration/)
    bad({ after: 3, within: '1m' }, /ban\.for/)
    bad({ after: 3, within: '1m', for: '1h', extra: 1 }, /ban/)
    expect(() =>
      createRateLimitHandler({
        limits: [{ algorithm: fixedWindow({ limit: 1, window: '1m' }) }],
        ban: { after: 1, within: '1m', for: '1m' },
      }),
    ).toThrow(/rateLimit\.ban.*left out when `limits` is given/)
    const plain: Store = {
      consume: () => ({
        allowed: true,
        limit: 1,
        remaining: 1,
        resetMs: 0,
        retryAfterMs: 0,
        delayMs: 0,
        policy: '',
      }),
      peek: () => ({
        allowed: true,
        limit: 1,
        remaining: 1,
        resetMs: 0,
        retryAfterMs: 0,
        delayMs: 0,
        policy: '',
      }),
      refund: () => {},
      reset: () => {},
      close: () => {},
    }
    expect(() =>
      createRateLimitHandler({ store: plain, ban: { after: 1, within: '1m', for: '1m' } }),
    ).toThrow(RateLimitConfigError)
    expect(() =>
      createRateLimitHandler({ store: plain, ban: { after: 1, within: '1m', for: '1m' } }),
    ).toThrow(/rateLimit\.store.*keeps bans/)
    expect(() => createRateLimitHandler({ store: plain })).not.toThrow()
  })
})

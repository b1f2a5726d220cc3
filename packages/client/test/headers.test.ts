import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseDraft6, parseDraft7, parseDraft8, parseLegacy, readRateLimit } from '../src/headers/index.js'
import { YEAR_SECONDS } from '../src/headers/numbers.js'
import { parseMembers } from '../src/headers/structured-fields.js'

/** 2024-06-29T06:29:30Z, as in docs/headers.md. */
const NOW = 1_719_642_570_000
const YEAR_MS = YEAR_SECONDS * 1000

describe('draft-6', () => {
  it('RateLimit-Limit, -Remaining, -Reset (delta seconds) and the window from RateLimit-Policy', () => {
    const headers = new Headers({
      'RateLimit-Limit': '100',
      'RateLimit-Remaining': '42',
      'RateLimit-Reset': '30',
      'RateLimit-Policy': '100;w=60',
    })
    expect(parseDraft6(headers, NOW)).toEqual({
      mode: 'draft-6',
      name: undefined,
      limit: 100,
      remaining: 42,
      resetMs: 30_000,
      windowMs: 60_000,
    })
  })

  it('reads a plain object of lower-case names (undici, Node), arrays included', () => {
    const policy = parseDraft6({ 'ratelimit-remaining': ['0'], 'ratelimit-reset': '5' }, NOW)
    expect(policy).toMatchObject({ limit: undefined, remaining: 0, resetMs: 5_000, windowMs: undefined })
  })

  it('older drafts: quota policies inside RateLimit-Limit; several in RateLimit-Policy', () => {
    const policy = parseDraft6(
      new Headers({
        'RateLimit-Limit': '10, 10;w=1, 1000;w=3600',
        'RateLimit-Policy': '1000;w=3600, 10;w=1',
      }),
      NOW,
    )
    expect(policy).toMatchObject({ limit: 10, windowMs: 1_000 })
  })

  it('absent: undefined', () => {
    expect(parseDraft6(new Headers({ 'Content-Type': 'text/plain' }), NOW)).toBeUndefined()
  })
})

describe('draft-7', () => {
  it('RateLimit: limit=, remaining=, reset= and RateLimit-Policy', () => {
    const headers = new Headers({
      RateLimit: 'limit=100, remaining=42, reset=30',
      'RateLimit-Policy': '100;w=60',
    })
    expect(parseDraft7(headers, NOW)).toEqual({
      mode: 'draft-7',
      name: undefined,
      limit: 100,
      remaining: 42,
      resetMs: 30_000,
      windowMs: 60_000,
    })
  })

  it('any order, spaces, unknown members ignored', () => {
    const policy = parseDraft7(new Headers({ RateLimit: 'reset=5,remaining=0 , policy="x", limit=10' }), NOW)
    expect(policy).toMatchObject({ limit: 10, remaining: 0, resetMs: 5_000 })
  })

  it('fields separated by semicolons, as some servers send them', () => {
    const policy = parseDraft7(new Headers({ RateLimit: 'limit=100; remaining=7; reset=12' }), NOW)
    expect(policy).toMatchObject({ limit: 100, remaining: 7, resetMs: 12_000 })
  })

  it('a draft-8 RateLimit is not draft-7', () => {
    expect(parseDraft7(new Headers({ RateLimit: '"ip";r=42;t=30' }), NOW)).toBeUndefined()
  })
})

describe('draft-8 and later (Structured Fields)', () => {
  it('several policies, matched by name, with q, w, r, t', () => {
    const headers = new Headers({
      'RateLimit-Policy': '"ip";q=100;w=60, "user";q=1000;w=3600',
      RateLimit: '"ip";r=42;t=30, "user";r=942;t=1830',
    })
    expect(parseDraft8(headers, NOW)).toEqual([
      { mode: 'draft-8', name: 'ip', limit: 100, remaining: 42, resetMs: 30_000, windowMs: 60_000 },
      { mode: 'draft-8', name: 'user', limit: 1000, remaining: 942, resetMs: 1_830_000, windowMs: 3_600_000 },
    ])
  })

  it('the optional qu (quota unit) and pk (partition key)', () => {
    const headers = new Headers({
      'RateLimit-Policy': '"bytes";q=65535;qu="content-bytes";w=10;pk=:sjdflkjsdf=:',
      RateLimit: '"bytes";r=1000;t=2;pk=:sjdflkjsdf=:',
    })
    expect(parseDraft8(headers, NOW)).toEqual([
      {
        mode: 'draft-8',
        name: 'bytes',
        limit: 65_535,
        remaining: 1000,
        resetMs: 2_000,
        windowMs: 10_000,
        quotaUnit: 'content-bytes',
        partitionKey: 'sjdflkjsdf=',
      },
    ])
  })

  it('a policy only in one field is still reported; t is optional; names may be tokens or escaped strings', () => {
    const headers = new Headers({
      'RateLimit-Policy': '"daily";q=5000;w=86400',
      RateLimit: 'burst;r=3, "a \\"quoted\\" name";r=1;t=1',
    })
    expect(parseDraft8(headers, NOW).map((p) => [p.name, p.limit, p.remaining, p.resetMs])).toEqual([
      ['burst', undefined, 3, undefined],
      ['a "quoted" name', undefined, 1, 1_000],
      ['daily', 5000, undefined, undefined],
    ])
  })

  it('a draft-6 RateLimit-Policy (numbers, not names) gives no draft-8 policy', () => {
    expect(parseDraft8(new Headers({ 'RateLimit-Policy': '100;w=60' }), NOW)).toEqual([])
  })
})

describe('legacy X-RateLimit-*', () => {
  it('Reset as an epoch time in seconds (GitHub, express-rate-limit, ours)', () => {
    const headers = new Headers({
      'X-RateLimit-Limit': '100',
      'X-RateLimit-Remaining': '42',
      'X-RateLimit-Reset': '1719642600',
    })
    expect(parseLegacy(headers, NOW)).toEqual({
      mode: 'legacy',
      name: undefined,
      limit: 100,
      remaining: 42,
      resetMs: 30_000,
      windowMs: undefined,
    })
  })

  it('Reset as delta seconds (@fastify/rate-limit): a value under a year of seconds', () => {
    expect(parseLegacy(new Headers({ 'X-RateLimit-Reset': '30' }), NOW)?.resetMs).toBe(30_000)
    expect(parseLegacy(new Headers({ 'X-RateLimit-Reset': String(YEAR_SECONDS) }), NOW)?.resetMs).toBe(
      YEAR_MS,
    )
  })

  it('Reset as an epoch time in ms; an epoch in the past is 0', () => {
    expect(parseLegacy(new Headers({ 'X-RateLimit-Reset': String(NOW + 12_000) }), NOW)?.resetMs).toBe(12_000)
    expect(parseLegacy(new Headers({ 'X-RateLimit-Reset': '1719642000' }), NOW)?.resetMs).toBe(0)
  })
})

describe('readRateLimit', () => {
  it('every mode a response carries, and Retry-After', () => {
    const info = readRateLimit(
      new Headers({
        'Retry-After': '30',
        RateLimit: 'limit=100, remaining=0, reset=30',
        'RateLimit-Policy': '100;w=60',
        'X-RateLimit-Limit': '100',
        'X-RateLimit-Remaining': '0',
        'X-RateLimit-Reset': '1719642600',
      }),
      NOW,
    )
    expect(info.retryAfterMs).toBe(30_000)
    expect(info.policies.map((p) => [p.mode, p.remaining, p.resetMs])).toEqual([
      ['draft-7', 0, 30_000],
      ['legacy', 0, 30_000],
    ])
  })

  it('nothing: no policies, no Retry-After', () => {
    expect(readRateLimit(new Headers(), NOW)).toEqual({ retryAfterMs: undefined, policies: [] })
  })
})

describe('hostile values give a safe answer', () => {
  const hostile = [
    '-5',
    'NaN',
    'Infinity',
    '1e400',
    '0x10',
    '  ',
    '',
    '1,5',
    '9'.repeat(400),
    '"30"',
    '3 0',
    '+30',
  ]

  it.each(hostile)('%j is ignored or bounded, never NaN', (value) => {
    const info = readRateLimit(
      {
        'retry-after': value,
        'ratelimit-limit': value,
        'ratelimit-remaining': value,
        'ratelimit-reset': value,
        'x-ratelimit-reset': value,
      },
      NOW,
    )
    for (const p of info.policies) {
      for (const n of [p.limit, p.remaining, p.resetMs]) {
        if (n !== undefined) {
          expect(Number.isFinite(n)).toBe(true)
          expect(n).toBeGreaterThanOrEqual(0)
        }
      }
      if (p.resetMs !== undefined) expect(p.resetMs).toBeLessThanOrEqual(YEAR_MS)
    }
    if (info.retryAfterMs !== undefined) expect(info.retryAfterMs).toBeLessThanOrEqual(YEAR_MS)
  })

  it('a negative remaining is unknown, not a count; a fractional one is floored', () => {
    expect(parseDraft6(new Headers({ 'RateLimit-Remaining': '-1' }), NOW)).toBeUndefined()
    expect(parseDraft6(new Headers({ 'RateLimit-Remaining': '4.7' }), NOW)?.remaining).toBe(4)
  })

  it('huge numbers are capped: a reset of 10^25 seconds is at most a year', () => {
    expect(parseDraft6(new Headers({ 'RateLimit-Reset': `1${'0'.repeat(25)}` }), NOW)?.resetMs).toBe(YEAR_MS)
    expect(parseDraft8(new Headers({ RateLimit: '"x";r=1;t=999999999999999' }), NOW)[0]?.resetMs).toBe(
      YEAR_MS,
    )
  })

  it('a huge header is read only in part, and at most 64 Structured Fields members', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `"p${i}";r=1`).join(', ')
    const started = performance.now()
    expect(parseDraft8(new Headers({ RateLimit: many }), NOW)).toHaveLength(64)
    expect(performance.now() - started).toBeLessThan(1_000)
  })

  it('property: any header values at all read as finite, non-negative, bounded numbers', () => {
    const names = ['retry-after', 'ratelimit', 'ratelimit-policy', 'ratelimit-limit', 'ratelimit-remaining']
    const value = fc.oneof(
      fc.string(),
      fc.stringMatching(/^[-\d.;=, "a-z:?]{0,40}$/),
      fc.integer().map(String),
      fc.double().map(String),
    )
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom(...names, 'x-ratelimit-reset'), value),
        fc.integer({ min: 0, max: 4e12 }),
        (headers, now) => {
          const info = readRateLimit(headers, now)
          const numbers = [
            info.retryAfterMs,
            ...info.policies.flatMap((p) => [p.limit, p.remaining, p.resetMs, p.windowMs]),
          ]
          for (const n of numbers) {
            if (n === undefined) continue
            if (!Number.isFinite(n) || n < 0) return false
          }
          return [info.retryAfterMs, ...info.policies.map((p) => p.resetMs)].every(
            (n) => n === undefined || n <= YEAR_MS,
          )
        },
      ),
      { numRuns: 2_000 },
    )
  })
})

describe('Structured Fields reader', () => {
  it('lists with parameters, dictionaries, strings with commas and semicolons inside', () => {
    expect(parseMembers('"a,b;c";r=1, d=2;x, e')).toEqual([
      { key: undefined, value: 'a,b;c', params: new Map([['r', 1]]) },
      { key: 'd', value: 2, params: new Map([['x', true]]) },
      { key: undefined, value: 'e', params: new Map() },
    ])
  })

  it('skips members it cannot read, keeps the rest', () => {
    expect(parseMembers('"unterminated;r=1, "ok";r=2').map((m) => m.value)).toEqual([])
    expect(parseMembers('@@@;r=1, "ok";r=2, "x";r=@').map((m) => m.value)).toEqual(['ok'])
  })
})

import { describe, expect, it } from 'vitest'
import { compileHeaders, headerModes } from '../../src/http/headers.js'
import type { Decision } from '../../src/types.js'

const d = (over: Partial<Decision>): Decision => ({
  allowed: true,
  limit: 100,
  remaining: 42,
  resetMs: 29_001,
  retryAfterMs: 0,
  delayMs: 0,
  policy: 'ip',
  ...over,
})
const policies = [
  { name: 'ip', limit: 100, windowMs: 60_000 },
  { name: 'user', limit: 1000, windowMs: 3_600_000 },
]
const write = (modes: Parameters<typeof headerModes>[0], decisions: Decision[], chosen = 0, now = 0) => {
  const out: Record<string, string> = {}
  compileHeaders(headerModes(modes), policies.slice(0, decisions.length))?.(out, decisions, chosen, now)
  return out
}

describe('headers', () => {
  it('draft-6', () => {
    expect(write('draft-6', [d({})])).toEqual({
      'ratelimit-limit': '100',
      'ratelimit-remaining': '42',
      'ratelimit-reset': '30',
      'ratelimit-policy': '100;w=60',
    })
  })

  it('draft-7', () => {
    expect(write('draft-7', [d({})])).toEqual({
      ratelimit: 'limit=100, remaining=42, reset=30',
      'ratelimit-policy': '100;w=60',
    })
  })

  it('draft-8 lists every policy', () => {
    const out = write('draft-8', [
      d({}),
      d({ limit: 1000, remaining: 998, resetMs: 1_800_000, policy: 'user' }),
    ])
    expect(out).toEqual({
      'ratelimit-policy': '"ip";q=100;w=60, "user";q=1000;w=3600',
      ratelimit: '"ip";r=42;t=30, "user";r=998;t=1800',
    })
  })

  it('draft-6 and draft-7 report the chosen policy', () => {
    const out = write('draft-6', [d({}), d({ limit: 1000, remaining: 5, policy: 'user' })], 1)
    expect(out['ratelimit-limit']).toBe('1000')
    expect(out['ratelimit-policy']).toBe('1000;w=3600')
  })

  it('legacy resets in epoch seconds, rounded up', () => {
    const out = write('legacy', [d({ resetMs: 1_500 })], 0, 1_719_640_799_000)
    expect(out).toEqual({
      'x-ratelimit-limit': '100',
      'x-ratelimit-remaining': '42',
      'x-ratelimit-reset': '1719640801',
    })
  })

  it('seconds round up, a reset of 0 is 0, remaining never below 0 nor fractional', () => {
    expect(write('draft-6', [d({ resetMs: 1 })])['ratelimit-reset']).toBe('1')
    expect(write('draft-6', [d({ resetMs: 0 })])['ratelimit-reset']).toBe('0')
    expect(write('draft-6', [d({ remaining: -3 })])['ratelimit-remaining']).toBe('0')
    expect(write('draft-6', [d({ remaining: 2.7 })])['ratelimit-remaining']).toBe('2')
  })

  it('modes combine; true is draft-6; false is none', () => {
    expect(Object.keys(write(['draft-7', 'legacy'], [d({})])).sort()).toEqual([
      'ratelimit',
      'ratelimit-policy',
      'x-ratelimit-limit',
      'x-ratelimit-remaining',
      'x-ratelimit-reset',
    ])
    expect(headerModes(true)).toEqual(['draft-6'])
    expect(write(false, [d({})])).toEqual({})
  })
})

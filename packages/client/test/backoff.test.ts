import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { backoffCeiling, backoffDelay, type Jitter, retryDelay } from '../src/backoff.js'

const base = { baseMs: 2_000, maxMs: 30_000, random: () => 0.5 }

describe('backoff', () => {
  it('the ceiling doubles per attempt from baseDelay * 2 and stops at maxDelay', () => {
    expect([1, 2, 3, 4, 5, 100, 5000].map((n) => backoffCeiling(n, 2_000, 30_000))).toEqual([
      4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000,
    ])
  })

  it('full jitter: random(0, ceiling)', () => {
    expect(backoffDelay({ ...base, attempt: 1, jitter: 'full', random: () => 0 })).toBe(0)
    expect(backoffDelay({ ...base, attempt: 1, jitter: 'full' })).toBe(2_000)
    expect(backoffDelay({ ...base, attempt: 2, jitter: 'full', random: () => 0.999 })).toBeCloseTo(7_992)
  })

  it('equal jitter: ceiling / 2 + random(0, ceiling / 2)', () => {
    expect(backoffDelay({ ...base, attempt: 1, jitter: 'equal', random: () => 0 })).toBe(2_000)
    expect(backoffDelay({ ...base, attempt: 1, jitter: 'equal', random: () => 0.5 })).toBe(3_000)
  })

  it('decorrelated jitter: min(maxDelay, random(baseDelay, previous * 3))', () => {
    expect(backoffDelay({ ...base, attempt: 1, jitter: 'decorrelated', random: () => 0 })).toBe(2_000)
    expect(backoffDelay({ ...base, attempt: 1, jitter: 'decorrelated', random: () => 1 })).toBe(6_000)
    expect(
      backoffDelay({ ...base, attempt: 3, jitter: 'decorrelated', random: () => 0.5, previousMs: 6_000 }),
    ).toBe(10_000)
    expect(
      backoffDelay({ ...base, attempt: 9, jitter: 'decorrelated', random: () => 1, previousMs: 30_000 }),
    ).toBe(30_000)
  })

  it('none: the ceiling itself', () => {
    expect(backoffDelay({ ...base, attempt: 2, jitter: 'none', random: () => 0.1 })).toBe(8_000)
  })

  it('a broken random (NaN, negative, >= 1) is clamped into [0, 1]', () => {
    for (const r of [Number.NaN, -3, 7, Number.POSITIVE_INFINITY]) {
      const ms = backoffDelay({ ...base, attempt: 1, jitter: 'full', random: () => r })
      expect(ms).toBeGreaterThanOrEqual(0)
      expect(ms).toBeLessThanOrEqual(4_000)
    }
  })

  it('property: every kind stays within [0, maxDelay] and never NaN', () => {
    const jitter = fc.constantFrom<Jitter>('full', 'equal', 'decorrelated', 'none')
    fc.assert(
      fc.property(
        jitter,
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 60_000 }),
        fc.integer({ min: 0, max: 600_000 }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 600_000 }), { nil: undefined }),
        (kind, attempt, baseMs, maxMs, r, previousMs) => {
          const ms = backoffDelay({ attempt, baseMs, maxMs, jitter: kind, random: () => r, previousMs })
          return Number.isFinite(ms) && ms >= 0 && ms <= Math.max(maxMs, baseMs)
        },
      ),
    )
  })
})

describe('the wait before a retry', () => {
  it('without a server wait: the backoff', () => {
    expect(retryDelay(undefined, 1_234, 'full')).toBe(1_234)
  })

  it("with Retry-After: Retry-After plus the backoff, so a herd spreads out after the reset; 'none': exactly Retry-After", () => {
    expect(retryDelay(7_000, 1_234, 'full')).toBe(8_234)
    expect(retryDelay(7_000, 4_000, 'none')).toBe(7_000)
  })
})

import { describe, expect, it } from 'vitest'
import type { PolicyInfo, RateLimitInfo } from '../src/headers/types.js'
import { createPacer, MAX_ORIGIN_LENGTH, MAX_ORIGINS, restAfter } from '../src/pacer.js'

const policy = (remaining: number | undefined, resetMs: number | undefined): PolicyInfo => ({
  mode: 'draft-8',
  name: 'p',
  limit: 10,
  remaining,
  resetMs,
  windowMs: 60_000,
})
const info = (policies: PolicyInfo[], retryAfterMs?: number): RateLimitInfo => ({ retryAfterMs, policies })

describe('restAfter', () => {
  it('at 0 remaining: until the reset', () => {
    expect(restAfter(info([policy(0, 30_000)]), 0)).toBe(30_000)
  })

  it('with a few left (at most paceRemaining): the reset shared among them', () => {
    expect(restAfter(info([policy(3, 40_000)]), 5)).toBe(10_000)
    expect(restAfter(info([policy(6, 40_000)]), 5)).toBe(0)
  })

  it('the most restrictive of several policies, and at least Retry-After', () => {
    expect(restAfter(info([policy(50, 1_000), policy(0, 20_000), policy(0, 5_000)]), 0)).toBe(20_000)
    expect(restAfter(info([policy(9, 1_000)], 7_000), 0)).toBe(7_000)
  })

  it('a response that says nothing about its limits: no news', () => {
    expect(restAfter(info([]), 0)).toBeUndefined()
    expect(restAfter(info([policy(undefined, undefined)]), 0)).toBe(0)
  })
})

describe('pacer', () => {
  it('holds an origin back until its reset, others go; news of a fresh quota lifts it', () => {
    const pacer = createPacer({ paceRemaining: 0, maxDelayMs: 60_000 })
    pacer.observe('https://a.test', info([policy(0, 30_000)]), 1_000)
    expect(pacer.delayFor('https://a.test', 1_000)).toBe(30_000)
    expect(pacer.delayFor('https://a.test', 21_000)).toBe(10_000)
    expect(pacer.delayFor('https://b.test', 1_000)).toBe(0)
    pacer.observe('https://a.test', info([]), 2_000)
    expect(pacer.delayFor('https://a.test', 2_000)).toBe(29_000)
    pacer.observe('https://a.test', info([policy(9, 60_000)]), 2_000)
    expect(pacer.delayFor('https://a.test', 2_000)).toBe(0)
  })

  it('never holds back longer than maxPaceDelay', () => {
    const pacer = createPacer({ paceRemaining: 0, maxDelayMs: 10_000 })
    pacer.observe('o', info([policy(0, 3_600_000)]), 0)
    expect(pacer.delayFor('o', 0)).toBe(10_000)
  })

  it('remembers a bounded number of origins', () => {
    const pacer = createPacer({ paceRemaining: 0, maxDelayMs: 60_000 })
    for (let i = 0; i <= MAX_ORIGINS; i++) pacer.observe(`o${i}`, info([policy(0, 30_000)]), 0)
    expect(pacer.delayFor('o0', 0)).toBe(0)
    expect(pacer.delayFor(`o${MAX_ORIGINS}`, 0)).toBe(30_000)
    expect(pacer.delayFor('o1', 0)).toBe(30_000)
  })

  it('never keeps an origin longer than any real one (300 characters): such an origin is not paced', () => {
    const pacer = createPacer({ paceRemaining: 0, maxDelayMs: 60_000 })
    const longest = `https://${'a'.repeat(MAX_ORIGIN_LENGTH - 8)}`
    const longer = `${longest}b`
    for (const origin of [longest, longer]) pacer.observe(origin, info([policy(0, 30_000)]), 0)
    expect(pacer.delayFor(longest, 0)).toBe(30_000)
    expect(pacer.delayFor(longer, 0)).toBe(0)
  })
})

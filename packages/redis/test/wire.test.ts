import { calendarQuota, tokenBucket } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { parseAllReply } from '../src/wire.js'

// The consume-all reply as the store reads it (the script's end runs against a real Redis in the conformance
// and cluster suites): one string holding every item's decision.
const items = [
  { algorithm: tokenBucket({ capacity: 50, refillRate: 10 }), key: 'a', cost: 1 },
  { algorithm: calendarQuota({ limit: 10_000, period: 'day' }), key: 'a', cost: 1 },
]
const doubles = (...values: number[]): Buffer => {
  const buffer = Buffer.alloc(8 * values.length)
  for (let i = 0; i < values.length; i++) buffer.writeDoubleLE(values[i]!, 8 * i)
  return buffer
}
const admitted = doubles(49, 100)
const refused = doubles(0, 0, 3_600_000, 1_800_000, 0)

describe('parseAllReply', () => {
  it('reads a binary reply: one size byte per item, then the decisions in order', () => {
    const reply = Buffer.concat([Buffer.from([16, 40]), admitted, refused])
    expect(parseAllReply(reply, items)).toEqual([
      {
        allowed: true,
        limit: 50,
        remaining: 49,
        resetMs: 100,
        retryAfterMs: 0,
        delayMs: 0,
        policy: '',
        source: 'redis',
      },
      {
        allowed: false,
        limit: 10_000,
        remaining: 0,
        resetMs: 3_600_000,
        retryAfterMs: 1_800_000,
        delayMs: 0,
        policy: '',
        source: 'redis',
      },
    ])
  })

  it('reads a text reply: the decisions joined by commas, an infinite wait as inf', () => {
    const decisions = parseAllReply('1 49 100 0 0,0 0 3600000 inf 0', items)
    expect(decisions.map((d) => [d.allowed, d.remaining, d.retryAfterMs])).toEqual([
      [true, 49, 0],
      [false, 0, Number.POSITIVE_INFINITY],
    ])
  })

  it.each([
    ['one decision for two items', Buffer.concat([Buffer.from([16]), admitted])],
    ['a size byte that is not 16 or 40', Buffer.concat([Buffer.from([16, 24]), admitted, admitted])],
    ['a decision cut short', Buffer.concat([Buffer.from([16, 40]), admitted, admitted])],
    ['bytes after the last decision', Buffer.concat([Buffer.from([16, 16]), admitted, admitted, admitted])],
    ['an empty reply', Buffer.alloc(0)],
    ['one text decision for two items', '1 49 100 0 0'],
    ['a text decision with a missing field', '1 49 100 0 0,1 49 100 0'],
    ['an array, the format of older scripts', [admitted, admitted]],
    ['nothing', null],
  ])('throws on %s (the store takes its fail mode)', (_, reply) => {
    expect(() => parseAllReply(reply, items)).toThrow(TypeError)
  })
})

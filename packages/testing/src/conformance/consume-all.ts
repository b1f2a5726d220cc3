import { consumeAll } from '@floodgate/core/internal'
import { expect, it } from 'vitest'
import { pairOf, type Suite, uniqueKey } from './suite.js'

/** Through core's consumeAll: the store's own atomic consumeAll when it has one, else consume + refund. */
export function testConsumeAll(suite: Suite): void {
  const { cases, at, nextDay } = suite
  it('consumeAll: when one policy refuses, none is spent', async () => {
    const { store } = suite
    const [a, b] = pairOf(cases)
    const [keyA, keyB] = [uniqueKey('all-a'), uniqueKey('all-b')]
    const now = at(nextDay())
    for (let i = 0; i < b.limit; i++) await store.consume(b, keyB, 1, now)
    const decisions = await consumeAll(
      store,
      [
        { algorithm: a, key: keyA, cost: 1 },
        { algorithm: b, key: keyB, cost: 1 },
      ],
      now,
    )
    expect(decisions.map((d) => d.allowed)).toEqual([true, false])
    expect((await store.peek(a, keyA, 1, now)).remaining).toBe(a.limit)
    const both = await consumeAll(
      store,
      [
        { algorithm: a, key: keyA, cost: 1 },
        { algorithm: b, key: uniqueKey('all-c'), cost: 1 },
      ],
      now,
    )
    expect(both.map((d) => d.allowed)).toEqual([true, true])
    expect((await store.peek(a, keyA, 1, now)).remaining).toBe(a.limit - 1)
  })
}

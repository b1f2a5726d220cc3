import { RateLimitConfigError } from '@floodgate/core'
import { expect, it } from 'vitest'
import { resetLimits } from '../app-state.js'
import { pairOf, type Suite, uniqueKey } from './suite.js'

/** `clear()`, which `resetLimits` calls between an app's tests. */
export function testClear(suite: Suite): void {
  const { cases, at, nextDay } = suite
  it('clear() forgets every key, each starting again with a full quota; without it, resetLimits says so', async () => {
    const { store } = suite
    if (!store.clear) {
      await expect(resetLimits(store)).rejects.toThrow(RateLimitConfigError)
      return
    }
    const [a, b] = pairOf(cases)
    const [keyA, keyB] = [uniqueKey('clear-a'), uniqueKey('clear-b')]
    const now = at(nextDay())
    await store.consume(a, keyA, 1, now)
    await store.consume(b, keyB, 2, now)
    await resetLimits(store)
    expect((await store.peek(a, keyA, 1, now)).remaining).toBe(a.limit)
    expect((await store.peek(b, keyB, 1, now)).remaining).toBe(b.limit)
    expect((await store.consume(a, keyA, 1, now)).allowed).toBe(true)
  })
}

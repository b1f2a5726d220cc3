import { describe, expect, it } from 'vitest'
import { retryBudget } from '../src/budget.js'

describe('retry budget', () => {
  it('AWS standard mode by default: 500 tokens, a retry costs 5', () => {
    const budget = retryBudget()
    expect(budget.tokens).toBe(500)
    let retries = 0
    while (budget.spend()) retries++
    expect(retries).toBe(100)
    expect(budget.tokens).toBe(0)
  })

  it('a success gives back 1, a success after retries gives back a retry, never above capacity', () => {
    const budget = retryBudget({ capacity: 10, retryCost: 5, successRefund: 1 })
    budget.success(false)
    expect(budget.tokens).toBe(10)
    expect(budget.spend()).toBe(true)
    expect(budget.spend()).toBe(true)
    expect(budget.spend()).toBe(false)
    budget.success(false)
    expect(budget.tokens).toBe(1)
    budget.success(true)
    expect(budget.tokens).toBe(6)
    expect(budget.spend()).toBe(true)
    expect(budget.tokens).toBe(1)
  })

  it('in a steady outage, retries are bounded by successes / (retryCost / successRefund)', () => {
    const budget = retryBudget({ capacity: 50 })
    let retries = 0
    for (let request = 0; request < 10_000; request++) {
      // Half of the requests succeed at once; the other half is refused and would retry.
      if (request % 2 === 0) budget.success(false)
      else if (budget.spend()) retries++
    }
    expect(retries).toBeLessThanOrEqual(50 / 5 + 5_000 / 5)
    expect(retries).toBeGreaterThan(900)
  })

  it('invalid options fail at creation, naming the option', () => {
    expect(() => retryBudget({ capacity: 0 })).toThrow(
      'Expected `retryBudget.capacity` to be a finite number > 0, got 0 (number)',
    )
    expect(() => retryBudget({ retryCots: 5 } as never)).toThrow(
      /`retryBudget.retryCots` to be one of the known options/,
    )
  })
})

import { type Parsed, parseFields, positiveNumber } from './schema.js'

/**
 * A token bucket of retries shared by every request of a client (or of several clients that are given the
 * same one), as the AWS SDKs' standard retry mode has it: a retry spends `retryCost` tokens; a response
 * that is not retried and is not a server error (below 500) gives back `successRefund` (or, when it came
 * after retries, the `retryCost` it spent), never above `capacity`. While the bucket is short, a refused request is not retried: its refusal
 * is returned. So in an outage a fleet of clients sends at most about one retry per `retryCost /
 * successRefund` successful requests (5 by default), plus `capacity / retryCost` at the start, instead of
 * multiplying the load by `maxAttempts`.
 */
export interface RetryBudget {
  /** Tokens left. */
  readonly tokens: number
  /** Spend the cost of one retry; `false` (and nothing spent) when the bucket is short. */
  spend(): boolean
  /** A response needed no retry: give back `successRefund`, or the cost of a retry when it came after retries. */
  success(retried: boolean): void
}

const budgetSchema = {
  capacity: positiveNumber(500),
  retryCost: positiveNumber(5),
  successRefund: positiveNumber(1),
}

/** The options of {@link retryBudget}. */
export interface RetryBudgetOptions {
  /**
   * The bucket's size, and what it starts with.
   * @default 500
   * @example 100
   */
  capacity?: number
  /**
   * What one retry spends.
   * @default 5
   * @example 10
   */
  retryCost?: number
  /**
   * What a response that is not retried, and is not a server error, gives back.
   * @default 1
   * @example 0.5
   */
  successRefund?: number
}

/**
 * Create a retry budget; pass it as `budget` to share it between clients.
 *
 * @example
 * const budget = retryBudget({ capacity: 100 })
 * const api = createFetch({ budget })
 * const other = createFetch({ budget })
 */
export function retryBudget(options?: RetryBudgetOptions): RetryBudget {
  const { capacity, retryCost, successRefund }: Parsed<typeof budgetSchema> = parseFields(
    budgetSchema,
    options,
    'retryBudget',
  )
  let tokens = capacity
  return {
    get tokens() {
      return tokens
    },
    spend() {
      if (tokens < retryCost) return false
      tokens -= retryCost
      return true
    },
    success(retried) {
      tokens = Math.min(capacity, tokens + (retried ? retryCost : successRefund))
    },
  }
}

/** Whether `value` can serve as a {@link RetryBudget}. */
export const isRetryBudget = (value: unknown): value is RetryBudget =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as RetryBudget).spend === 'function' &&
  typeof (value as RetryBudget).success === 'function'

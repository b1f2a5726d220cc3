import { z } from 'zod'
import { RateLimitConfigError, RateLimitCostError } from './errors.js'
import { boundKey, MAX_KEY_LENGTH } from './keys.js'
import { MemoryStore } from './stores/memory.js'
import type { Algorithm, Clock, Decision, Store } from './types.js'
import { parseOptions } from './validate.js'

/** Options of {@link createLimiter}. */
export interface LimiterOptions {
  /**
   * The algorithm and its parameters.
   * @example slidingWindowCounter({ limit: 100, window: '1m' })
   */
  algorithm: Algorithm
  /**
   * Where state lives.
   * @default new MemoryStore()
   * @example new RedisStore({ client: new Redis() })
   */
  store?: Store
  /**
   * A namespace put before every key (`prefix:key`), so that limiters sharing a store never share state.
   * @default '' (none)
   * @example 'login'
   */
  prefix?: string
  /**
   * The policy name reported in decisions and headers.
   * @default 'default'
   * @example 'ip'
   */
  name?: string
  /**
   * The time source, in ms. Without it the store keeps time (the MemoryStore `Date.now()`, the RedisStore
   * the Redis server's clock); tests pass a virtual clock.
   * @example () => virtualNow
   */
  clock?: Clock
}

/** Options of one call. */
export interface ConsumeOptions {
  /**
   * How many units this request spends (a weight: an expensive write, a number of LLM tokens).
   * @default 1
   * @example 5
   */
  cost?: number
}

/** A rate limiter for one policy. Every method takes the caller's key (a user id, an IP, ...). */
export interface Limiter {
  readonly name: string
  readonly algorithm: Algorithm
  readonly store: Store
  /** Spend `cost` units if the policy allows it; a refusal is a decision with `allowed: false`. */
  consume(key: string, options?: ConsumeOptions): Promise<Decision>
  /** The decision a request of `cost` would get now, spending nothing. */
  peek(key: string, options?: ConsumeOptions): Promise<Decision>
  /** Give back units spent earlier (a request that failed, say). */
  refund(key: string, options?: ConsumeOptions): Promise<void>
  /** Forget the key: its next request starts with a full quota. */
  reset(key: string): Promise<void>
}

const isAlgorithm = (v: unknown): v is Algorithm =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as Algorithm).consume === 'function' &&
  typeof (v as Algorithm).stateSize === 'number'
const isStore = (v: unknown): v is Store =>
  typeof v === 'object' &&
  v !== null &&
  ['consume', 'peek', 'refund', 'reset'].every((m) => typeof (v as any)[m] === 'function')

export const algorithmSchema = z.custom<Algorithm>(isAlgorithm, {
  error: 'an algorithm such as slidingWindowCounter({ limit: 100, window: "1m" })',
})
export const storeSchema = z.custom<Store>(isStore, {
  error: 'a store (consume, peek, refund, reset, close)',
})
const clockSchema = z.custom<Clock>((v) => typeof v === 'function', { error: 'a function returning ms' })

const schema = z.strictObject({
  algorithm: algorithmSchema,
  store: storeSchema.optional(),
  prefix: z.string({ error: 'a string' }).default(''),
  name: z.string({ error: 'a non-empty string' }).min(1, { error: 'a non-empty string' }).default('default'),
  clock: clockSchema.optional(),
})

/** Check a cost: a finite number > 0. */
export function checkCost(cost: unknown): cost is number {
  return typeof cost === 'number' && cost > 0 && cost < Number.POSITIVE_INFINITY
}

/**
 * Create a limiter for one policy.
 *
 * @example
 * const limiter = createLimiter({ algorithm: slidingWindowCounter({ limit: 100, window: '1m' }) })
 * const decision = await limiter.consume('user:123')
 * if (!decision.allowed) console.log(`retry in ${decision.retryAfterMs} ms`)
 */
export function createLimiter(options: LimiterOptions): Limiter {
  const parsed = parseOptions(schema, options, 'createLimiter')
  const { algorithm, name, clock } = parsed
  const store = parsed.store ?? new MemoryStore()
  const prefix = parsed.prefix === '' ? '' : `${parsed.prefix}:`

  const storeKey = (key: string): string => {
    if (typeof key !== 'string' || key.length === 0) {
      throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_KEY', 'key', key, 'a non-empty string')
    }
    const bounded = boundKey(key)
    return prefix === '' ? bounded : prefix + bounded
  }
  const costOf = (options: ConsumeOptions | undefined): number => {
    const cost = options?.cost ?? 1
    if (!checkCost(cost)) throw new RateLimitCostError(cost)
    return cost
  }
  const named = (decision: Decision): Decision => {
    decision.policy = name
    return decision
  }
  /** The hot path: a short string key, a cost of 1 or a valid cost, a synchronous store. */
  const isPlainKey = (key: unknown): key is string =>
    typeof key === 'string' && key.length > 0 && key.length <= MAX_KEY_LENGTH

  return {
    name,
    algorithm,
    store,
    consume(key, options) {
      try {
        const cost = options === undefined || options.cost === undefined ? 1 : costOf(options)
        const storeKeyed = isPlainKey(key) ? (prefix === '' ? key : prefix + key) : storeKey(key)
        const result = store.consume(algorithm, storeKeyed, cost, clock === undefined ? undefined : clock())
        if (result instanceof Promise) return result.then(named)
        result.policy = name
        return Promise.resolve(result)
      } catch (error) {
        return Promise.reject(error)
      }
    },
    async peek(key, options) {
      return named(await store.peek(algorithm, storeKey(key), costOf(options), clock?.()))
    },
    async refund(key, options) {
      await store.refund(algorithm, storeKey(key), costOf(options), clock?.())
    },
    async reset(key) {
      await store.reset(algorithm, storeKey(key))
    },
  }
}

import { z } from 'zod'
import { boundOne } from './algorithms/bounded-delay.js'
import { isCost, normalizeCost } from './cost.js'
import { RateLimitConfigError, RateLimitCostError } from './errors.js'
import { encodeKeyPart, MAX_KEY_PART_LENGTH, partitionOf, storeKey } from './store-keys/store-key.js'
import { MemoryStore } from './stores/memory.js'
import type { Algorithm, Clock, Decision, Store } from './types.js'
import { algorithmSchema, parseOptions, storeSchema } from './validate.js'

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
   * A namespace put before every key (`prefix:{key}`), so that limiters sharing a store never share state.
   * It must not contain `{` or `}`.
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
   * How many units this request spends (a weight: an expensive write, a number of LLM tokens): a finite
   * number >= 0, counted to 1/1024 of a unit; 0 spends nothing (the decision is then a peek).
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
  /**
   * `consume` with no promise: the decision itself, in this tick. On a synchronous store only (the
   * MemoryStore); on another it throws a `RateLimitConfigError` (`ERR_FLOODGATE_STORE_NOT_SYNCHRONOUS`) and
   * spends nothing. An invalid key or cost throws as `consume` rejects. For hot loops in one process (a
   * WebSocket's messages, a job runner's calls), where an `await` per decision is most of the cost.
   * @example if (!limiter.consumeSync(socket.id).allowed) socket.close(1008, 'slow down')
   */
  consumeSync(key: string, options?: ConsumeOptions): Decision
  /** The decision a request of `cost` would get now, spending nothing. */
  peek(key: string, options?: ConsumeOptions): Promise<Decision>
  /** `peek` with no promise, on a synchronous store only (as `consumeSync`). */
  peekSync(key: string, options?: ConsumeOptions): Decision
  /** Give back units spent earlier (a request that failed, say). */
  refund(key: string, options?: ConsumeOptions): Promise<void>
  /** Forget the key: its next request starts with a full quota. */
  reset(key: string): Promise<void>
}

const clockSchema = z.custom<Clock>((v) => typeof v === 'function', { error: 'a function returning ms' })

const schema = z.strictObject({
  algorithm: algorithmSchema,
  store: storeSchema.optional(),
  prefix: z
    .string({ error: 'a string without { or }' })
    .regex(/^[^{}]*$/, { error: 'a string without { or }' })
    .default(''),
  name: z.string({ error: 'a non-empty string' }).min(1, { error: 'a non-empty string' }).default('default'),
  clock: clockSchema.optional(),
})

/**
 * Create a limiter for one policy.
 *
 * Keys are yours to choose (a user id, an address); any string works, and two different strings are never
 * one bucket, on any store. A cost is a finite number >= 0: 0 is free (the decision is a peek), and other
 * costs are counted to 1/1024 of a unit (see `COST_PRECISION`). An invalid key or cost rejects with a
 * `RateLimitConfigError` or `RateLimitCostError`: those are bugs in the caller, not refusals.
 *
 * @example
 * const limiter = createLimiter({ algorithm: slidingWindowCounter({ limit: 100, window: '1m' }) })
 * const decision = await limiter.consume('user:123')
 * if (!decision.allowed) console.log(`retry in ${decision.retryAfterMs} ms`)
 */
export function createLimiter(options: LimiterOptions): Limiter {
  const parsed = parseOptions(schema, options, 'createLimiter')
  const { algorithm, name, clock } = parsed
  const store: Store = parsed.store ?? new MemoryStore()
  store.checkAlgorithm?.(algorithm)
  const scope = parsed.prefix === '' ? '' : `${parsed.prefix}:`

  // Without a prefix, a key that needs no encoding is its own store key: no other key can equal it (every
  // encoded or scoped key holds a brace, and it holds none), the MemoryStore keeps the caller's string
  // instead of a copy, and the RedisStore tags it as it tags `{key}`, so its Redis key is the same.
  const storeKeyOf = (key: string): string =>
    scope === '' && key.length <= MAX_KEY_PART_LENGTH && encodeKeyPart(key) === key
      ? key
      : storeKey(scope, partitionOf(key))
  // The last key's store key, kept: a caller that asks about one key many times in a row (a hot client, a
  // loop over one socket's messages) builds it once, and the store finds it with its hash already computed.
  let lastKey: string | undefined
  let lastStoreKey = ''
  const keyOf = (key: string): string => {
    if (key === lastKey && lastKey !== undefined) return lastStoreKey
    if (typeof key !== 'string' || key.length === 0) {
      throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_KEY', 'key', key, 'a non-empty string')
    }
    lastStoreKey = storeKeyOf(key)
    lastKey = key
    return lastStoreKey
  }
  const costOf = (options: ConsumeOptions | undefined): number => {
    if (options !== undefined && (typeof options !== 'object' || options === null)) {
      // `consume(key, 5)` would otherwise charge 1: a cost goes in `{ cost: 5 }`.
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_OPTION',
        'options',
        options,
        'an object of options like { cost: 5 }, or nothing',
      )
    }
    const cost = options?.cost === undefined ? 1 : options.cost
    if (!isCost(cost)) throw new RateLimitCostError(cost)
    return normalizeCost(cost)
  }
  const named = (decision: Decision): Decision => {
    decision.policy = name
    return decision
  }
  const now = () => (clock === undefined ? undefined : clock())
  const notSynchronous = (method: string) =>
    new RateLimitConfigError(
      'ERR_FLOODGATE_STORE_NOT_SYNCHRONOUS',
      'createLimiter.store',
      store,
      `a synchronous store (the MemoryStore) for ${method}; on this store use ${method.replace('Sync', '')}, which returns a promise`,
    )

  return {
    name,
    algorithm,
    store,
    consume(key, options) {
      try {
        const cost = options === undefined ? 1 : costOf(options)
        const at = keyOf(key)
        const t = now()
        const decided = cost === 0 ? store.peek(algorithm, at, 0, t) : store.consume(algorithm, at, cost, t)
        const result = boundOne(store, { algorithm, key: at, cost }, decided, t)
        if (result instanceof Promise) return result.then(named)
        result.policy = name
        return Promise.resolve(result)
      } catch (error) {
        return Promise.reject(error)
      }
    },
    consumeSync(key, options) {
      if (store.synchronous !== true) throw notSynchronous('consumeSync')
      const cost = options === undefined ? 1 : costOf(options)
      const at = keyOf(key)
      const t = now()
      const decided = cost === 0 ? store.peek(algorithm, at, 0, t) : store.consume(algorithm, at, cost, t)
      const result = boundOne(store, { algorithm, key: at, cost }, decided, t)
      // A store that says it is synchronous and answers with a promise (an async subclass of the MemoryStore,
      // say) is refused: a promise is never handed out as a decision. What it spent stays spent.
      if (result instanceof Promise) throw notSynchronous('consumeSync')
      result.policy = name
      return result
    },
    peekSync(key, options) {
      if (store.synchronous !== true) throw notSynchronous('peekSync')
      const at = keyOf(key)
      const t = now()
      const decided = boundOne(
        store,
        { algorithm, key: at, cost: 0 },
        store.peek(algorithm, at, costOf(options), t),
        t,
      )
      if (decided instanceof Promise) throw notSynchronous('peekSync')
      return named(decided)
    },
    async peek(key, options) {
      const at = keyOf(key)
      const t = now()
      const decided = store.peek(algorithm, at, costOf(options), t)
      return named(await boundOne(store, { algorithm, key: at, cost: 0 }, decided, t)) // a peek spends nothing
    },
    async refund(key, options) {
      const cost = costOf(options)
      if (cost > 0) await store.refund(algorithm, keyOf(key), cost, now())
    },
    async reset(key) {
      await store.reset(algorithm, keyOf(key))
    },
  }
}

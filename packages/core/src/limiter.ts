import * as z from 'zod'
import { boundOne } from './algorithms/bounded-delay.js'
import { isCost, normalizeCost } from './cost.js'
import type { Duration } from './duration.js'
import { RateLimitConfigError, RateLimitCostError } from './errors.js'
import { compileFailurePolicy, type FailMode, failureOptionsShape } from './failure-policy.js'
import { metricsSinkSchema } from './metrics/schema.js'
import type { MetricsSink } from './metrics/sink.js'
import { checkRelease } from './refund-items.js'
import { encodeKeyPart, MAX_KEY_PART_LENGTH, partitionOf, storeKey } from './store-keys/store-key.js'
import { MemoryStore } from './stores/memory.js'
import type { Algorithm, Awaitable, Clock, ConsumeItem, Decision, Store } from './types.js'
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
  /**
   * What a decision is when the store cannot answer (it rejects, throws, or passes `storeTimeout`; a RedisStore
   * or PostgresStore whose backend recently failed rejects at once): `'open'` allows it (`source:
   * 'fail-open'`); `'closed'` refuses it (`source: 'fail-closed'`, `retryAfterMs: 1000`); `{ fallback }` asks
   * the fallback store (`source: 'fallback'`; an in-memory insurance limiter counts per process). The same
   * option as on `rateLimit`.
   * @default 'open'
   * @example { fallback: new MemoryStore() }
   */
  failMode?: FailMode
  /**
   * The longest a decision waits for the store before `failMode` decides. A store that bounds its own calls
   * (RedisStore, PostgresStore, SyncedStore) is given this bound when the limiter is created (several
   * limiters over one store: the shortest); any other store is raced against a timer. The same option as on
   * `rateLimit`.
   * @default '500ms'
   * @example '100ms'
   */
  storeTimeout?: Duration
  /**
   * Where to count the decisions `failMode` takes (`floodgate_fail_mode_total`, see `docs/metrics.md`).
   * @default none
   * @example prometheus({ register })
   */
  metrics?: MetricsSink
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
  /**
   * Give back the units an allowed decision holds (`decision.lease`, on a `concurrency` policy) when its work
   * is done: exactly those units, once. A lease already given back, or expired, frees nothing.
   * @example
   * const decision = await limiter.consume(userId)
   * if (decision.allowed) try { await work() } finally { await limiter.release(userId, decision.lease!) }
   */
  release(key: string, lease: string): Promise<void>
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
  ...failureOptionsShape,
  metrics: metricsSinkSchema.optional(),
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
  checkRelease(store, algorithm, 'createLimiter.store')
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

  const failure = compileFailurePolicy(store, {
    failMode: parsed.failMode,
    storeTimeout: parsed.storeTimeout,
    metrics: parsed.metrics,
  })
  /** The decision of an item the store could not answer: `failMode` decides. */
  const failed = (operation: 'consume' | 'peek', item: ConsumeItem, t: number | undefined) => {
    const decided = failure.decide(operation, item, t)
    return decided instanceof Promise ? decided.then(named) : Promise.resolve(named(decided))
  }
  /** Peek `item` on the store, bounded by `storeTimeout`; a store that cannot answer: `failMode` decides. */
  const decide = (operation: 'peek', item: ConsumeItem, t: number | undefined): Promise<Decision> => {
    let result: Awaitable<Decision>
    try {
      const { key, cost } = item
      result = boundOne(store, { algorithm, key, cost: 0 }, store.peek(algorithm, key, cost, t), t) // spends nothing
    } catch {
      return failed(operation, item, t)
    }
    if (!(result instanceof Promise)) return Promise.resolve(named(result))
    return failure.bound(result).then(named, () => failed(operation, item, t))
  }

  return {
    name,
    algorithm,
    store,
    consume(key, options) {
      let item: ConsumeItem
      let result: Awaitable<Decision>
      try {
        const cost = options === undefined ? 1 : costOf(options)
        item = { algorithm, key: keyOf(key), cost }
      } catch (error) {
        return Promise.reject(error) // the caller's error (a key, a cost), not the store's
      }
      const t = now()
      if (item.cost === 0) return decide('peek', item, t)
      try {
        result = boundOne(store, item, store.consume(algorithm, item.key, item.cost, t), t)
      } catch {
        return failed('consume', item, t)
      }
      if (result instanceof Promise)
        return failure.bound(result).then(named, () => failed('consume', item, t))
      result.policy = name
      return Promise.resolve(result)
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
    peek(key, options) {
      let item: ConsumeItem
      try {
        item = { algorithm, key: keyOf(key), cost: costOf(options) }
      } catch (error) {
        return Promise.reject(error)
      }
      return decide('peek', item, now())
    },
    async refund(key, options) {
      const cost = costOf(options)
      if (cost === 0) return
      const item = { algorithm, key: keyOf(key), cost }
      const t = now()
      try {
        const refunded = store.refund(algorithm, item.key, cost, t)
        if (refunded instanceof Promise) await failure.bound(refunded)
      } catch {
        await failure.refund(item, t)
      }
    },
    async release(key, lease) {
      if (typeof lease !== 'string' || lease === '') {
        throw new RateLimitConfigError(
          'ERR_FLOODGATE_INVALID_OPTION',
          'lease',
          lease,
          "an allowed decision's lease",
        )
      }
      const at = keyOf(key)
      const t = now()
      try {
        const released = store.release?.(algorithm, at, lease, t)
        if (released instanceof Promise) await failure.bound(released)
      } catch {
        // The store could not: the lease expires on its own. Its units may have come from the fallback store.
      }
      try {
        const released = failure.fallback?.release?.(algorithm, at, lease, t)
        if (released instanceof Promise) await failure.boundFallback(released).catch(() => {})
      } catch {
        // dropped, as a refund the fallback cannot make
      }
    },
    async reset(key) {
      const at = keyOf(key)
      if (failure.fallback) await failure.fallback.reset(algorithm, at)
      await store.reset(algorithm, at)
    },
  }
}

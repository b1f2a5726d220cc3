import * as z from 'zod'
import type { Duration } from '../duration.js'
import type { Algorithm, Decision } from '../types.js'
import { decide, NEVER } from './decide.js'
import { algorithmId } from './id.js'
import { duration, parseOptions, positiveInt } from './options.js'

/** Options of {@link concurrency}. */
export interface ConcurrencyOptions {
  /**
   * How many units a key may hold at once: requests in flight, or units of cost (a request of cost 3 holds 3).
   * @example 10
   */
  limit: number
  /**
   * The longest a unit is held: a unit that no server gives back (its process crashed, or lost the store)
   * is free again this long after it was taken. Choose it above your slowest request's duration: a request
   * still running when its lease ends no longer counts. Ms, or a string like `'30s'`.
   * @example '30s'
   */
  lease: Duration
}

const schema = z.strictObject({
  limit: positiveInt('a whole number >= 1 (units held at once)'),
  lease: duration(),
})

/**
 * How long a refused request is told to wait at most (`retryAfterMs`), in ms: a unit comes back when a running
 * request ends, which no store can foresee. The time until enough leases expire is only an upper bound (the
 * one for a crashed holder), usually far longer than the wait, so a refusal says the shorter of that bound and
 * one second (`Retry-After: 1`, the smallest it can say). The RedisStore's Lua and the PostgresStore's SQL
 * use the same bound.
 */
export const CONCURRENCY_RETRY_MS = 1000

/**
 * The last lease number handed out in this process: every lease the TypeScript takes gets a new one, whatever
 * the store, key or algorithm, so a lease given back late (after it expired, twice, after a `reset`) can never
 * match another request's units.
 */
let lastLease = 0

/**
 * Concurrency limit: a key may hold `limit` units at once. A request takes one unit (or its cost) when it is
 * allowed and gives it back when it ends: the decision carries a `lease`, and `release(lease)` on the store (or
 * the limiter) frees exactly that lease's units, once; the HTTP middleware does it when the response ends or
 * the client leaves. A unit nobody gives back expires `lease` after it was taken. Stripe's "concurrent
 * requests limiter"; combine it with a rate policy in `limits` to decide both as one.
 *
 * A refusal's `retryAfterMs` is the time until enough leases expire, at most one second (a running request
 * may end any moment; see `CONCURRENCY_RETRY_MS`); `resetMs` is the time until every held lease has expired, an
 * upper bound. `refund` gives nothing back (a unit is given back by its lease only).
 *
 * State: `limit` slots of `[lease, expiry]`; a slot is held while its expiry is after now. Costs are whole
 * units: a fractional cost is rounded up. O(limit) memory and time per key.
 *
 * @example concurrency({ limit: 10, lease: '30s' })
 */
export function concurrency(options: ConcurrencyOptions): Algorithm {
  const { limit, lease: leaseMs } = parseOptions(schema, options, 'concurrency')

  const evaluate = (s: Float64Array, at: number, now: number, rawCost: number, commit: boolean): Decision => {
    const cost = Math.ceil(rawCost)
    let free = 0
    let newest = now
    for (let i = 0; i < limit; i++) {
      const expiry = s[at + 2 * i + 1]!
      if (expiry <= now) free++
      else if (expiry > newest) newest = expiry
    }
    if (cost <= free) {
      if (!commit) return decide(true, limit, free, newest - now, 0, 0)
      const lease = ++lastLease
      const expiry = now + leaseMs
      for (let i = 0, taken = 0; taken < cost; i++) {
        if (s[at + 2 * i + 1]! > now) continue
        s[at + 2 * i] = lease
        s[at + 2 * i + 1] = expiry
        taken++
      }
      const decision = decide(true, limit, free - cost, leaseMs, 0, 0)
      decision.lease = String(lease)
      return decision
    }
    return decide(false, limit, free, newest - now, retryAfter(s, at, now, cost - free, cost), 0)
  }

  /** When `need` more units will have expired (the `need`-th earliest expiry), at most one second. */
  const retryAfter = (s: Float64Array, at: number, now: number, need: number, cost: number): number => {
    if (cost > limit) return NEVER
    const held: number[] = []
    for (let i = 0; i < limit; i++) {
      const expiry = s[at + 2 * i + 1]!
      if (expiry > now) held.push(expiry)
    }
    held.sort((a, b) => a - b)
    return Math.min(CONCURRENCY_RETRY_MS, held[need - 1]! - now)
  }

  return {
    kind: 'concurrency',
    limit,
    windowMs: leaseMs,
    stateSize: 2 * limit,
    params: { limit, leaseMs },
    id: algorithmId('concurrency', { limit, leaseMs }),
    consume: (s, at, now, cost) => evaluate(s, at, now, cost, true),
    peek: (s, at, now, cost) => evaluate(s, at, now, cost, false),
    refund() {
      // Units are given back by their lease (`release`), never by a count: nothing is given back twice.
    },
    release(s, at, _now, lease) {
      const id = Number(lease)
      if (!Number.isSafeInteger(id) || id <= 0) return
      for (let i = 0; i < limit; i++) {
        if (s[at + 2 * i] !== id) continue
        s[at + 2 * i] = 0
        s[at + 2 * i + 1] = 0
      }
    },
    expiresAt(s, at) {
      let last = 0
      for (let i = 0; i < limit; i++) if (s[at + 2 * i + 1]! > last) last = s[at + 2 * i + 1]!
      return last
    },
  }
}

import type { RateLimitInfo } from './headers/types.js'
import { argument, required, requiredNumber } from './schema.js'

const rateLimitInfo = required<RateLimitInfo>(
  'what readRateLimit() answers: { retryAfterMs, policies: [...] }',
  (v) => typeof v === 'object' && v !== null && Array.isArray((v as RateLimitInfo).policies),
)
const count = requiredNumber(0)

/** How many origins a pacer remembers; past that it forgets the ones whose pause is over, then the oldest. */
export const MAX_ORIGINS = 1_000

/**
 * The longest origin a pacer remembers: longer than any real one (a DNS name has at most 253 characters), so
 * an origin longer than this is never paced, and a pacer holds at most 1,000 origins of at most 300
 * characters each, whatever URLs it is given.
 */
export const MAX_ORIGIN_LENGTH = 300

/**
 * How long to hold back the next request after a response, from what it said: until the reset of a policy
 * at `remaining` 0; when a policy has a few left (at most `paceRemaining`), the reset shared among them
 * (`resetMs / (remaining + 1)`), so they spread out instead of running into the wall; at least
 * `Retry-After`, when the response had one. `undefined` when the response said nothing about its limits.
 *
 * @example restAfter({ retryAfterMs: undefined, policies: [{ remaining: 0, resetMs: 30_000, ... }] }, 0) // 30000
 */
export function restAfter(info: RateLimitInfo, paceRemaining: number): number | undefined {
  argument('restAfter.info', info, rateLimitInfo)
  argument('restAfter.paceRemaining', paceRemaining, count)
  if (info.policies.length === 0 && info.retryAfterMs === undefined) return undefined
  let rest = info.retryAfterMs ?? 0
  for (const { remaining, resetMs } of info.policies) {
    if (remaining === undefined || resetMs === undefined || remaining > paceRemaining) continue
    rest = Math.max(rest, remaining <= 0 ? resetMs : resetMs / (remaining + 1))
  }
  return rest
}

/** Holds back requests to an origin that said it is at (or near) its limit. */
export interface Pacer {
  /** Ms to wait before sending to `origin` (0: go). */
  delayFor(origin: string, now: number): number
  /** Take in what a response from `origin` said. */
  observe(origin: string, info: RateLimitInfo, now: number): void
}

export interface PacerOptions {
  /** Pace when a policy has at most this many left. */
  readonly paceRemaining: number
  /** The longest a request is held back. */
  readonly maxDelayMs: number
}

/** @example const pacer = createPacer({ paceRemaining: 0, maxDelayMs: 60_000 }) */
export function createPacer({ paceRemaining, maxDelayMs }: PacerOptions): Pacer {
  const until = new Map<string, number>()
  const makeRoom = (now: number) => {
    for (const [origin, time] of until) if (time <= now) until.delete(origin)
    if (until.size >= MAX_ORIGINS) until.delete(until.keys().next().value as string)
  }
  return {
    delayFor(origin, now) {
      const time = until.get(origin)
      return time === undefined || time <= now ? 0 : time - now
    },
    observe(origin, info, now) {
      const rest = restAfter(info, paceRemaining)
      if (rest === undefined || origin.length > MAX_ORIGIN_LENGTH) return
      until.delete(origin)
      if (rest <= 0) return
      if (until.size >= MAX_ORIGINS) makeRoom(now)
      until.set(origin, now + Math.min(rest, maxDelayMs))
    },
  }
}

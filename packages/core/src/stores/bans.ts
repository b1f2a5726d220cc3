import type { Algorithm, BanRule, ConsumeItem, Decision } from '../types.js'

/**
 * Bans as a store keeps them, per store key: three numbers, `until count start` (the ban's end, the refusals
 * counted, when their window opened; all zeros is no ban and nothing counted). The MemoryStore runs these
 * functions; the RedisStore's Lua and the PostgresStore's SQL write the same steps, and the store conformance
 * suite checks that they agree.
 */

/** How many numbers a key's ban state is. */
export const BAN_STATE_SIZE = 3

/** ms until the ban in `state` ends, 0 when the key is not banned at `now`. */
export function bannedFor(state: ArrayLike<number> | undefined, now: number): number {
  return state !== undefined && state[0]! > now ? state[0]! - now : 0
}

/** The decision of a banned key's item: a refusal until the ban ends, nothing consumed. */
export function bannedDecision(algorithm: Algorithm, ms: number, now: boolean): Decision {
  const decision: Decision = {
    allowed: false,
    limit: algorithm.limit,
    remaining: 0,
    resetMs: ms,
    retryAfterMs: ms,
    delayMs: 0,
    policy: '',
    bannedMs: ms,
  }
  if (now) decision.bannedNow = true
  return decision
}

/**
 * Count one refusal in `state` (written in place) at `now`: a window that has run `withinMs` (or holds nothing)
 * opens again at `now`. Returns `true` when this refusal is the `after`-th: the key is then banned until
 * `now + forMs`, and the count starts again from zero.
 */
export function countRefusal(state: Float64Array | number[], rule: BanRule, now: number): boolean {
  if (state[1]! === 0 || now - state[2]! >= rule.withinMs) {
    state[1] = 1
    state[2] = now
  } else {
    state[1] = state[1]! + 1
  }
  if (state[1]! < rule.after) return false
  state[0] = now + rule.forMs
  state[1] = 0
  state[2] = 0
  return true
}

/** ms from `now` until `state` is all zeros again (the ban over, the count's window run): when it may go. */
export function banTtl(state: ArrayLike<number>, rule: BanRule, now: number): number {
  const ban = state[0]! - now
  const counted = state[1]! > 0 ? state[2]! + rule.withinMs - now : 0
  return Math.max(0, ban, counted)
}

/** Whether any item carries a ban. */
export function anyBan(items: readonly ConsumeItem[]): boolean {
  for (let i = 0; i < items.length; i++) if (items[i]!.ban !== undefined) return true
  return false
}

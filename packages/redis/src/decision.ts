import type { Algorithm, Decision } from '@floodgate/core'

/**
 * Where a RedisStore decision came from: `'redis'` (the script), `'block-cache'` (refused locally, see
 * `blockCache`), or the fail mode taken because Redis failed or is known to be down: `'fail-open'`,
 * `'fail-closed'`, `'fallback'`.
 */
export type DecisionSource = 'redis' | 'block-cache' | 'fail-open' | 'fail-closed' | 'fallback'

/** A {@link Decision} that also says where it came from. */
export interface RedisDecision extends Decision {
  source: DecisionSource
}

/** Parse a script's reply, `allowed remaining resetMs retryAfterMs delayMs`. */
export function parseDecision(reply: unknown, algorithm: Algorithm): RedisDecision {
  const text = typeof reply === 'string' ? reply : String(reply)
  const a = text.indexOf(' ')
  const b = text.indexOf(' ', a + 1)
  const c = text.indexOf(' ', b + 1)
  const d = text.indexOf(' ', c + 1)
  if (a !== 1 || d === -1)
    throw new TypeError(`Unexpected reply from a Floodgate script: ${text.slice(0, 80)}`)
  return {
    allowed: text.charCodeAt(0) === 49,
    limit: algorithm.limit,
    remaining: Number(text.slice(a + 1, b)),
    resetMs: Number(text.slice(b + 1, c)),
    retryAfterMs: Number(text.slice(c + 1, d)),
    delayMs: Number(text.slice(d + 1)),
    policy: '',
    source: 'redis',
  }
}

/** The decision when failing open: allowed, as a fresh key would be (even a cost above the limit). */
export function openDecision(algorithm: Algorithm, cost: number, peek: boolean): RedisDecision {
  const remaining = Math.max(0, Math.floor(peek ? algorithm.limit : algorithm.limit - cost))
  return {
    allowed: true,
    limit: algorithm.limit,
    remaining,
    resetMs: 0,
    retryAfterMs: 0,
    delayMs: 0,
    policy: '',
    source: 'fail-open',
  }
}

/** The decision when failing closed: refused, to be retried once the circuit may have closed. */
export function closedDecision(algorithm: Algorithm, retryAfterMs: number): RedisDecision {
  return {
    allowed: false,
    limit: algorithm.limit,
    remaining: 0,
    resetMs: retryAfterMs,
    retryAfterMs,
    delayMs: 0,
    policy: '',
    source: 'fail-closed',
  }
}

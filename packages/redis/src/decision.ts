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

/** The size of a binary reply: five little-endian doubles. */
const REPLY_BYTES = 40

/**
 * Parse a script's reply, `allowed remaining resetMs retryAfterMs delayMs`: five little-endian doubles
 * (a Buffer), or the same as text.
 */
export function parseDecision(reply: unknown, algorithm: Algorithm): RedisDecision {
  if (Buffer.isBuffer(reply) && reply.length === REPLY_BYTES) {
    return {
      allowed: reply.readDoubleLE(0) === 1,
      limit: algorithm.limit,
      remaining: reply.readDoubleLE(8),
      resetMs: reply.readDoubleLE(16),
      retryAfterMs: reply.readDoubleLE(24),
      delayMs: reply.readDoubleLE(32),
      policy: '',
      source: 'redis',
    }
  }
  const fields = typeof reply === 'string' ? reply.split(' ') : []
  if (fields.length !== 5)
    throw new TypeError(`Unexpected reply from a Floodgate script: ${String(reply).slice(0, 80)}`)
  return {
    allowed: fields[0] === '1',
    limit: algorithm.limit,
    remaining: Number(fields[1]),
    resetMs: Number(fields[2]),
    retryAfterMs: Number(fields[3]),
    delayMs: Number(fields[4]),
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

import type { CallFailure } from '@floodgate/core/internal'
import { isIoredisReplyError } from './clients/ioredis.js'
import { isNodeRedisErrorReply } from './clients/node-redis.js'

/**
 * Stable codes of the errors the RedisStore rejects with when it cannot answer (and reports to `onError`):
 * Redis did not answer within the store's bound (the limiter's `storeTimeout`); Redis is unreachable, or failed
 * recently and is not tried again yet (the circuit is open); Redis answered with an error or an unreadable reply.
 */
export type RedisStoreErrorCode =
  | 'ERR_FLOODGATE_REDIS_TIMEOUT'
  | 'ERR_FLOODGATE_REDIS_UNAVAILABLE'
  | 'ERR_FLOODGATE_REDIS_FAILED'

/** Why the RedisStore could not answer: see {@link RedisStoreErrorCode}; `cause` holds the client's error. */
export class RedisStoreError extends Error {
  override readonly name = 'RedisStoreError'
  readonly code: RedisStoreErrorCode
  constructor(code: RedisStoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

/**
 * The code of a Redis error reply, from ioredis or node-redis: its first word (`NOSCRIPT`, `WRONGTYPE`, `ERR`,
 * ...), which is how the protocol marks the kind of error. `undefined` when `error` is not an error reply (a
 * connection error, a timeout).
 */
export function replyCode(error: unknown): string | undefined {
  if (!(error instanceof Error) || !(isIoredisReplyError(error) || isNodeRedisErrorReply(error)))
    return undefined
  const space = error.message.indexOf(' ')
  return space === -1 ? error.message : error.message.slice(0, space)
}

/** The error a failed call rejects with: its own, when it is already the store's (a timeout), else one wrapping it. */
export function storeErrorOf(failure: CallFailure): RedisStoreError {
  const { error } = failure
  if (error instanceof RedisStoreError) return error
  const text = error instanceof Error ? error.message : String(error)
  return failure.outage
    ? new RedisStoreError('ERR_FLOODGATE_REDIS_UNAVAILABLE', `Redis is unreachable: ${text}`, {
        cause: error,
      })
    : new RedisStoreError('ERR_FLOODGATE_REDIS_FAILED', `Redis could not decide: ${text}`, { cause: error })
}

/** What a call rejects with while the circuit is open: Redis failed recently and is not tried again yet. */
export const circuitOpenError = (): RedisStoreError =>
  new RedisStoreError(
    'ERR_FLOODGATE_REDIS_UNAVAILABLE',
    'Redis failed recently and is not tried again until its cooldown has passed and the client is connected',
  )

import { isIoredisReplyError } from './clients/ioredis.js'
import { isNodeRedisErrorReply } from './clients/node-redis.js'

/** Stable codes of the errors the RedisStore reports (to `onError`, or from `reset`). */
export type RedisStoreErrorCode = 'ERR_FLOODGATE_REDIS_TIMEOUT'

/** Redis did not answer within `timeoutMs`. */
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

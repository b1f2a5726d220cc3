export { BlockCache } from './block-cache.js'
export { RedisStoreError, type RedisStoreErrorCode, replyCode } from './errors.js'
export type {
  FailMode,
  RedisClient,
  RedisStoreErrorEvent,
  RedisStoreOptions,
} from './options.js'
export * from './queue/index.js'
export { keySlot, redisKey } from './redis-key.js'
export { ALL_SCRIPTS, CONSUME_ALL, SCRIPTS, type Script } from './scripts/index.js'
export { RedisStore } from './store.js'
export * from './synced/index.js'
export type { DecisionSource, RedisDecision } from './wire.js'

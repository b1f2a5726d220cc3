export { BlockCache } from './block-cache.js'
export type { DecisionSource, RedisDecision } from './decision.js'
export { RedisStoreError, type RedisStoreErrorCode, replyCode } from './errors.js'
export { keySlot, keyTag, MAX_TAG_LENGTH, redisKey } from './keys.js'
export type {
  FailMode,
  RedisClient,
  RedisStoreErrorEvent,
  RedisStoreOptions,
} from './options.js'
export { ALL_SCRIPTS, CONSUME_ALL, SCRIPTS, type Script } from './scripts/index.js'
export { RedisStore } from './store.js'

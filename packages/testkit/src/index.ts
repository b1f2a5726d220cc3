export { type AlgorithmCase, algorithmCases } from './algorithms.js'
export { describeStoreConformance, referenceModel, type StoreFactory } from './conformance.js'
export { seededRandom } from './random.js'
export { type RecordingSink, recordingSink, seriesKey } from './recording-sink.js'
export {
  freePort,
  pingRedis,
  type RedisCluster,
  type RedisServer,
  requireSharedRedis,
  SHARED_REDIS,
  startRedis,
  startRedisCluster,
} from './redis.js'
export { sharedRedisStoreFactory } from './redis-store-factory.js'
export { type Vector, type VectorStep, vectors } from './vectors.js'
export { type VirtualClock, virtualClock } from './virtual-clock.js'
export { type VirtualTimers, virtualTimers } from './virtual-timers.js'

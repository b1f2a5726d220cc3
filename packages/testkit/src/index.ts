export {
  type AlgorithmCase,
  algorithmCases,
  everyAlgorithm,
  exactnessCases,
  quotaAlgorithm,
} from './algorithms.js'
export {
  exited,
  killOnExit,
  runFile,
  type ServerProcess,
  serverProcess,
  waitFor,
} from './child-processes.js'
export { describeStoreConformance, type StoreFactory } from './conformance.js'
export {
  byFailMode,
  expectBoundedAndHonoured,
  expectModesHonoured,
  expectOperationsFallBack,
  FAIL_MODES,
  type FailureLoad,
  type FailureLoadOptions,
  type FallingBack,
  failureLoad,
  type LoadRecord,
  type SourcedStore,
  until,
  watchUnhandled,
} from './failure-load.js'
export { fireAtOnce } from './fire.js'
export type { FireMessage, FireOrder, FireReport } from './fire-child.js'
export { bundleFixture, type FixtureBundle, type Fleet, forkFixture } from './fork-fixture.js'
export { freePort } from './free-port.js'
export { seededRandom } from './random.js'
export { type RecordingSink, recordingSink, seriesKey } from './recording-sink.js'
export { type RedisCluster, startRedisCluster } from './redis-cluster.js'
export { type RedisServer, startRedis } from './redis-server.js'
export { sharedRedisStoreFactory } from './redis-store-factory.js'
export {
  agreeOnRandomOperation,
  type RandomOperation,
  type ReferenceModel,
  referenceModel,
} from './reference-model.js'
export { requestInfo } from './request-info.js'
export { type HeapProbe, heapProbe, type RetainedHeap } from './retained-heap.js'
export { pingRedis, requireSharedRedis, SHARED_REDIS } from './shared-redis.js'
export { type Vector, type VectorStep, vectors } from './vectors.js'
export { type VirtualClock, virtualClock } from './virtual-clock.js'
export { type VirtualTimers, virtualTimers } from './virtual-timers.js'

// Floodgate's own test harness (private): the servers its tests start, forked fleets, failure load, a recording
// metrics sink. What a store author or an app's tests need is `@floodgate/testing`.
export { everyAlgorithm, exactnessCases } from './algorithms.js'
export {
  exited,
  killOnExit,
  runFile,
  type ServerProcess,
  serverProcess,
  waitFor,
} from './child-processes.js'
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
export { type RecordingSink, recordingSink, seriesKey } from './recording-sink.js'
export { type RedisCluster, startRedisCluster } from './redis-cluster.js'
export { type RedisServer, startRedis } from './redis-server.js'
export { type StoreFactory, sharedRedisStoreFactory } from './redis-store-factory.js'
export { requestInfo } from './request-info.js'
export { type HeapProbe, heapProbe, type RetainedHeap } from './retained-heap.js'
export { pingRedis, requireSharedRedis, SHARED_REDIS } from './shared-redis.js'

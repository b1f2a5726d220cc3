export { clusterForFile } from './cluster.js'
export { describeAdapterConformance } from './conformance.js'
export {
  drivers,
  express4Driver,
  expressDriver,
  fastifyDriver,
  koa2Driver,
  koaDriver,
} from './drivers/index.js'
export {
  brokenStore,
  endpointsOf,
  errorLog,
  fwd,
  openApps,
  recordingStore,
  START,
  type SuiteContext,
  statusesOf,
  suiteContext,
} from './harness.js'
export { memoryStore, redisStore } from './stores.js'
export type {
  AdapterApp,
  AdapterAppSetup,
  AdapterDriver,
  AdapterRequest,
  AdapterResponse,
  AdapterRoute,
  AppGates,
  DegradationSetup,
} from './types.js'

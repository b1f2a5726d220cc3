// @floodgate/testing: the store conformance suite for anyone writing a store, a virtual clock, and helpers an
// app's own tests need. See docs/testing.md.
export { type AlgorithmCase, algorithmCases, quotaAlgorithm } from './algorithms.js'
export { type LimitOf, peekLimit, resetLimits } from './app-state.js'
export { testStore } from './conformance/test-store.js'
export { seededRandom } from './random.js'
export {
  agreeOnRandomOperation,
  type RandomOperation,
  type ReferenceModel,
  referenceModel,
} from './reference-model.js'
export type { StoreUnderTest, SuiteTime } from './store-under-test.js'
export { type Vector, type VectorStep, vectors } from './vectors.js'
export { type VirtualClock, virtualClock } from './virtual-clock.js'
export { type VirtualTimers, virtualTimers } from './virtual-timers.js'

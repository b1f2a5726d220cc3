// The degradation middlewares' core: what a server does when it is the one out of capacity.
export type { DegradationErrorCode } from './errors.js'
export { DegradationError } from './errors.js'
export type { AnswerOutcome, Gate, GateEntry, GateOutcome, GoneOutcome, PassOutcome } from './gate.js'
export { createLoadShedder, type LoadShedder } from './load-shedder/create.js'
export {
  type DelayHistogram,
  type EventLoopDelaySignalOptions,
  eventLoopDelaySignal,
  type OverloadSignal,
} from './load-shedder/event-loop-delay.js'
export type { LoadShedderOptions } from './load-shedder/options.js'
export { createPriorityQueue, type PriorityQueue } from './priority-queue/create.js'
export type { PriorityQueueOptions, QueueOptions } from './priority-queue/options.js'
export { createSlowDown, type SlowDown } from './slow-down/create.js'
export type { DelayFunction, SlowDownKey, SlowDownKeyPart, SlowDownOptions } from './slow-down/options.js'
export type {
  RequestSlowDown,
  SlowDownEntry,
  SlowDownGone,
  SlowDownOutcome,
  SlowDownPass,
} from './slow-down/outcome.js'
export type { Timers } from './timers.js'

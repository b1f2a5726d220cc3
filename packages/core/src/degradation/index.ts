// The degradation middlewares' core: what a server does when it is the one out of capacity.
export type { DegradationErrorCode } from './errors.js'
export { DegradationError } from './errors.js'
export type { AnswerOutcome, Gate, GateEntry, GateOutcome, GoneOutcome, PassOutcome } from './gate.js'
export { createPriorityQueue, type PriorityQueue } from './priority-queue/create.js'
export type { PriorityQueueOptions, QueueOptions } from './priority-queue/options.js'
export type { Timers } from './timers.js'

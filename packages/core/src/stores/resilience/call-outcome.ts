import { callHook, hookFailed } from '../../guarded-call.js'
import type { StoreMetrics } from '../../metrics/store-metrics.js'
import { CallFailure, type Settled } from './deadlines.js'

/**
 * What a bounded call settled with, read by `parse`: what `parse` returns, or the {@link CallFailure} (a reply
 * `parse` throws on is a failure too, though not an outage: the backend answered). `context` is passed to
 * `parse` after the reply, so that a hot path reads a reply with a function of its own and no closure.
 *
 * @example
 * const read = readSettled(settled, parseReply, algorithm) // parseReply(reply, algorithm)
 * if (read instanceof CallFailure) return failed(read)
 */
export function readSettled<T>(settled: Settled, parse: (reply: unknown) => T): T | CallFailure
export function readSettled<T, C>(
  settled: Settled,
  parse: (reply: unknown, context: C) => T,
  context: C,
): T | CallFailure
export function readSettled<T, C>(
  settled: Settled,
  parse: (reply: unknown, context?: C) => T,
  context?: C,
): T | CallFailure {
  if (settled instanceof CallFailure) return settled
  try {
    return parse(settled, context)
  } catch (error) {
    return new CallFailure(error, false, false)
  }
}

/** The error a failure carries, as the `Error` a hook is given. */
export const failureError = (failure: CallFailure): Error =>
  failure.error instanceof Error ? failure.error : new Error(String(failure.error))

/** What a store reports each failed call to. */
export interface FailureReportParts<E> {
  /** Opened by a timeout or a connection error (anything but an error reply). */
  readonly circuit: { trip(): void }
  readonly metrics: StoreMetrics | undefined
  /** The store's `onError` option. */
  readonly onError: ((error: Error, event: E) => void) | undefined
}

/**
 * How a remote store reports a failed call, once per failure: a timeout or a connection error opens the
 * circuit, the failure is counted, and `onError` is told. A hook that throws or rejects is ignored (a process
 * warning, once): it must not turn a decision into a rejection, break a loop that syncs, nor end the process.
 *
 * @example
 * const report = failureReporter({ circuit, metrics, onError: options.onError })
 * report(failure, { operation: 'consume', key, failMode, timedOut: failure.timedOut })
 */
export function failureReporter<E>(parts: FailureReportParts<E>): (failure: CallFailure, event: E) => void {
  const { circuit, metrics, onError } = parts
  const failed = hookFailed('onError')
  return (failure, event) => {
    if (failure.outage) circuit.trip()
    metrics?.failed(failure)
    if (onError) callHook(onError, failed, failureError(failure), event)
  }
}

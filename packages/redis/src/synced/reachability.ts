import { type CallFailure, Circuit, failureReporter, type StoreMetrics } from '@floodgate/core/internal'
import type { ScriptRunner } from '../script-runner.js'
import type { RedisStore } from '../store.js'
import type { ParsedSyncedOptions } from './options.js'

/** After a failed sync, how long (ms) Redis is left alone before the next try (once the client is connected). */
const RETRY_AFTER_FAILURE_MS = 1000
/**
 * Whether a SyncedStore may call Redis: the circuit over its client, asked by every sync and by every decision
 * that the keys' budgets do not cover (a covered decision does not ask: see `SyncedStore.consume`). A failed
 * call trips the circuit (on an outage), is counted in `metrics` (the wrapped RedisStore's, when it has them) and
 * is reported to `onError`, as the RedisStore reports its own.
 */
export class Reachability {
  private readonly store: RedisStore
  private readonly circuit: Circuit
  private readonly report: (failure: CallFailure, event: { keys: number; timedOut: boolean }) => void

  constructor(parts: {
    runner: ScriptRunner
    store: RedisStore
    metrics: StoreMetrics | undefined
    onError: ParsedSyncedOptions['onError']
  }) {
    this.store = parts.store
    this.circuit = new Circuit(parts.runner, RETRY_AFTER_FAILURE_MS)
    this.report = failureReporter({ circuit: this.circuit, metrics: parts.metrics, onError: parts.onError })
  }

  /** Whether Redis may be called now. */
  online(): boolean {
    return this.circuit.allows() && !this.store.degraded
  }

  /** A call carrying `keys` keys failed. */
  failed(failure: CallFailure, keys: number): void {
    this.report(failure, { keys, timedOut: failure.timedOut })
  }
}

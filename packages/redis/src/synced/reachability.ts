import { type CallFailure, Circuit } from '@floodgate/core/internal'
import type { ScriptRunner } from '../script-runner.js'
import type { RedisStore } from '../store.js'
import type { ParsedSyncedOptions } from './options.js'

/** After a failed sync, how long (ms) Redis is left alone before the next try (once the client is connected). */
const RETRY_AFTER_FAILURE_MS = 1000
/** How many decisions may use one reading of whether Redis is reachable. */
const ONLINE_CHECK_EVERY = 64

/**
 * Whether a SyncedStore may call Redis: the circuit over its client, asked once every 64 decisions and after
 * every failure. A failed call trips the circuit (on an outage) and is reported to `onError`.
 */
export class Reachability {
  private readonly circuit: Circuit
  private onlineNow = true
  private checks = 0

  constructor(
    runner: ScriptRunner,
    private readonly store: RedisStore,
    private readonly onError: ParsedSyncedOptions['onError'],
  ) {
    this.circuit = new Circuit(runner, RETRY_AFTER_FAILURE_MS)
  }

  /** Whether Redis may be called now. */
  online(): boolean {
    if (this.checks-- > 0) return this.onlineNow
    this.checks = ONLINE_CHECK_EVERY
    this.onlineNow = this.circuit.allows() && !this.store.degraded
    return this.onlineNow
  }

  /** A call carrying `keys` keys failed. */
  failed(failure: CallFailure, keys: number): void {
    if (failure.outage) this.circuit.trip()
    this.checks = 0
    if (!this.onError) return
    const error = failure.error instanceof Error ? failure.error : new Error(String(failure.error))
    try {
      this.onError(error, { keys, timedOut: failure.timedOut })
    } catch {
      // onError must not throw; a throwing hook must not break the sync loop.
    }
  }
}

import type { BoundHistogram } from '@floodgate/core/internal'
import { CallFailure } from '@floodgate/core/internal'
import type { ScriptRunner } from '../script-runner.js'
import type { DecisionClock } from './decision-clock.js'
import type { Fleet } from './fleet.js'
import type { SyncTimers } from './options.js'
import { landCall, release, sendCalls } from './sync-calls.js'
import { FLEET } from './sync-script.js'
import type { SyncStats } from './sync-stats.js'
import type { SyncedKey } from './synced-key.js'

/** What the loop needs from its store. */
export interface SyncLoopParts {
  runner: ScriptRunner
  syncEveryMs: number
  timers: SyncTimers
  /** The local clock (ms), for timing syncs. */
  local: () => number
  /** Which clock decisions run on: what a sync sends the script, and the server clock its replies measure. */
  clock: DecisionClock
  fleet: Fleet
  /** Whether Redis may be called now (the circuit is closed). */
  online: () => boolean
  /** Where each sync call's duration is recorded: the wrapped RedisStore's `sync` histogram, when it has metrics. */
  timing: BoundHistogram | undefined
  /** A call failed (an outage or an error reply), carrying `keys` keys. */
  failed: (failure: CallFailure, keys: number) => void
  /** A call read `entry`'s state back (it is in `entry.known` and its view now). */
  read: (entry: SyncedKey) => void
  stats: SyncStats
}

/**
 * Sends the keys used since the last sync, once per `syncEvery` (the regular sync, one at a time, with the
 * fleet heartbeat), and reads keys that must be read before they are decided at once, in a call of their own
 * (a microtask later, so that a burst of new keys shares it). A key is never in two calls at once. A timer
 * exists only while there is something to send.
 */
export class SyncLoop {
  private queue: SyncedKey[] = []
  private reads: SyncedKey[] = []
  private timer: unknown
  private readScheduled = false
  private regular: Promise<void> | undefined
  private readonly flights = new Set<Promise<void>>()
  /** When (local clock) the queue last went from empty to not: nothing queued was counted before that. */
  private queuedSince = Number.NaN
  private stopped = false

  constructor(private readonly parts: SyncLoopParts) {}

  /** Send `entry` with the next regular sync (its units, and a read of its total). */
  enqueue(entry: SyncedKey): void {
    if (entry.queued) return
    entry.queued = true
    if (this.queue.length === 0) this.queuedSince = this.parts.local()
    this.queue.push(entry)
    this.schedule()
  }

  /** Read `entry` now; resolves once a call carried it (or failed). */
  read(entry: SyncedKey): Promise<void> {
    return new Promise((resolve) => {
      if (entry.waiters) entry.waiters.push(resolve)
      else entry.waiters = [resolve]
      if (entry.inFlight || entry.reading) return // the call carrying it releases it
      entry.reading = true
      this.reads.push(entry)
      if (this.readScheduled) return
      this.readScheduled = true
      queueMicrotask(() => {
        this.readScheduled = false
        for (const e of this.reads) e.reading = false
        const batch = this.reads.filter((e) => !e.inFlight && !e.detached && e.waiters)
        this.reads = []
        this.fly(batch)
      })
    })
  }

  /**
   * Sync now what is queued (after the syncs in flight), or at least count the processes; resolves when done,
   * never rejects.
   */
  async sync(): Promise<void> {
    await this.landed()
    if (this.queue.length > 0) await this.startRegular()
    else if (this.parts.fleet.counting && this.parts.online()) await this.heartbeat()
  }

  /** Join (or stay in) the fleet and learn how many processes it has. */
  heartbeat(op: 'join' | 'leave' = 'join'): Promise<void> {
    const { runner, fleet } = this.parts
    const sentAt = this.parts.local()
    return runner.run(FLEET, 1, [fleet.key, ...fleet.args(op)]).then((settled) => {
      if (op === 'join') fleet.observe(settled, sentAt)
    })
  }

  /** Resolves when every call in flight now has landed. */
  async landed(): Promise<void> {
    await Promise.all([...this.flights])
  }

  /** Stop scheduling regular syncs (`sync()` still sends). */
  stop(): void {
    this.stopped = true
    this.clearTimer()
  }

  private schedule(): void {
    if (this.regular === undefined && this.timer === undefined && !this.stopped) {
      this.timer = this.parts.timers.setTimeout(this.fire, this.parts.syncEveryMs)
    }
  }

  private readonly fire = (): void => {
    this.timer = undefined
    if (this.regular === undefined) void this.startRegular()
  }

  private clearTimer(): void {
    if (this.timer === undefined) return
    this.parts.timers.clearTimeout(this.timer)
    this.timer = undefined
  }

  private startRegular(): Promise<void> {
    this.clearTimer()
    // A key still in a read's call waits for the next sync.
    const waiting = this.queue.filter((entry) => entry.inFlight && !entry.detached)
    const batch = this.queue.filter((entry) => !entry.inFlight && !entry.detached)
    for (const entry of batch) entry.queued = false
    this.queue = waiting
    const since = this.queuedSince
    const flight = this.fly(batch, since)
    this.regular = flight
    void flight.then(() => {
      this.regular = undefined
      if (this.queue.length > 0) this.schedule()
    })
    return flight
  }

  /**
   * Send `batch` (a regular sync when `queuedSince` says since when its units were counted; else a read); the
   * flight is tracked before anything runs, so what it enqueues waits for it.
   */
  private fly(batch: SyncedKey[], queuedSince?: number): Promise<void> {
    let landed!: () => void
    const flight = new Promise<void>((resolve) => {
      landed = resolve
    })
    this.flights.add(flight)
    void this.send(batch, queuedSince)
      .catch((error: unknown) => this.parts.failed(new CallFailure(error, false, false), batch.length))
      .finally(() => {
        this.flights.delete(flight)
        landed()
      })
    return flight
  }

  private async send(batch: SyncedKey[], queuedSince: number | undefined): Promise<void> {
    const regular = queuedSince !== undefined
    const { parts } = this
    if (batch.length === 0) return
    if (!parts.online()) {
      // Nothing is sent while Redis is known to be down: the counts wait, and are tried again next time.
      for (const entry of batch) {
        release(entry)
        this.enqueue(entry)
      }
      return
    }
    const sentAt = parts.local()
    const now = parts.clock.scriptNow()
    const calls = sendCalls(parts.runner, batch, now, parts.timing)
    const fleet = regular && parts.fleet.counting ? this.heartbeat() : undefined
    parts.stats.calls += calls.length
    const settled = await Promise.all(calls.map((call) => call.reply))
    const receivedAt = parts.local()
    await fleet
    const timing = { sentAt, receivedAt, serverClock: now === undefined }
    let ok = true
    calls.forEach((call, i) => {
      const failure = landCall(call, settled[i], {
        binary: parts.runner.binary,
        serverClock: parts.clock.server,
        timing,
        read: parts.read,
        stats: parts.stats,
      })
      if (!failure) return
      ok = false
      parts.stats.failedCalls++
      for (const entry of call.entries) if (!entry.detached) this.enqueue(entry)
      parts.failed(failure, call.entries.length)
    })
    parts.stats.syncs++
    parts.stats.keysSynced += batch.length
    // Every unit this sync carried was counted after `queuedSince`: none waited longer to reach Redis.
    if (regular && ok && !Number.isNaN(queuedSince)) {
      parts.stats.longestSyncGapMs = Math.max(parts.stats.longestSyncGapMs, receivedAt - queuedSince)
    }
  }
}

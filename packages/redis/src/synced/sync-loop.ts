import { CallFailure, type Settled } from '@floodgate/core/internal'
import { keySlot } from '../redis-key.js'
import type { ScriptRunner } from '../script-runner.js'
import type { Fleet } from './fleet.js'
import type { SyncTimers } from './options.js'
import type { ServerClock } from './server-clock.js'
import { FLEET, parseSyncReply, SYNC, type SyncItem, syncArgs } from './sync-script.js'
import type { SyncedKey } from './synced-key.js'

/** The most keys one sync call carries, so that no script holds Redis for long. */
const KEYS_PER_CALL = 256

/**
 * How long (ms) a key's state is kept in Redis after it has become equal to a fresh one, as the RedisStore's
 * default `expiryGraceMs`: expiring later changes no decision.
 */
const EXPIRY_GRACE_MS = 2000

/** Counters of what the SyncedStore did, for tests, benchmarks and dashboards. */
export interface SyncStats {
  /** Sync rounds completed (each one call per Cluster slot, per 256 keys). */
  syncs: number
  /** Sync script calls sent. */
  calls: number
  /** Keys sent, over all syncs. */
  keysSynced: number
  /** Sync calls that failed (their counts were kept and sent again). */
  failedCalls: number
  /** Decisions made locally with Redis reachable. */
  local: number
  /** Decisions made by the RedisStore's script (near the limit). */
  exact: number
  /** Decisions made locally while Redis was unreachable. */
  offline: number
  /** Decisions that waited for their key's first read. */
  waited: number
  /**
   * The longest time from sending one sync to the reply of the next, over back-to-back syncs: the longest a
   * local admission stayed unreported, and the `D` of the overshoot bound.
   */
  longestSyncGapMs: number
}

export const emptyStats = (): SyncStats => ({
  syncs: 0,
  calls: 0,
  keysSynced: 0,
  failedCalls: 0,
  local: 0,
  exact: 0,
  offline: 0,
  waited: 0,
  longestSyncGapMs: 0,
})

/** What the loop needs from its store. */
export interface SyncLoopParts {
  runner: ScriptRunner
  isCluster: boolean
  syncEveryMs: number
  timers: SyncTimers
  /** The local clock (ms), for timing syncs. */
  local: () => number
  serverClock: ServerClock
  /** The time to send to the script: the limiter's latest, when it passes one; else the server's own. */
  scriptNow: () => number | undefined
  fleet: Fleet
  /** Whether Redis may be called now (the circuit is closed). */
  online: () => boolean
  /** A call failed (an outage or an error reply), carrying `keys` keys. */
  failed: (failure: CallFailure, keys: number) => void
  stats: SyncStats
}

/**
 * Sends every key used since the last sync, once per `syncEvery`: one script call per Cluster slot (all keys
 * in one call on a standalone Redis; 256 keys at most per call), all sent at once, with the fleet heartbeat.
 * One sync at a time: a key is never in two syncs. A timer exists only while there is something to send, and
 * a key's first read is sent at once (a microtask later, so that a burst of new keys shares one sync).
 */
export class SyncLoop {
  private queue: SyncedKey[] = []
  private timer: unknown
  private scheduled = false
  private flight: Promise<void> | undefined
  private urgent = false
  private lastSentAt = Number.NaN
  private chained = false
  private stopped = false

  constructor(private readonly parts: SyncLoopParts) {}

  /** Send `entry` with the next sync (its units, and a read of its total). */
  enqueue(entry: SyncedKey): void {
    if (entry.queued) return
    entry.queued = true
    this.queue.push(entry)
    if (this.flight === undefined && this.timer === undefined && !this.scheduled && !this.stopped) {
      this.timer = this.parts.timers.setTimeout(this.fire, this.parts.syncEveryMs)
    }
  }

  /** Read `entry` as soon as possible; resolves once a sync carried it (or failed). */
  read(entry: SyncedKey): Promise<void> {
    return new Promise((resolve) => {
      if (entry.waiters) entry.waiters.push(resolve)
      else entry.waiters = [resolve]
      this.enqueue(entry)
      if (this.flight) this.urgent = true
      else this.soon()
    })
  }

  /**
   * Sync now what is queued (after the sync in flight, if any), or at least count the processes; resolves when
   * done, never rejects.
   */
  async sync(): Promise<void> {
    if (this.flight) await this.flight
    if (this.queue.length > 0) await this.start()
    else if (this.parts.fleet.counting && this.parts.online()) await this.heartbeat()
  }

  /** Join (or stay in) the fleet and learn how many processes it has. */
  heartbeat(op: 'join' | 'leave' = 'join'): Promise<void> {
    const { runner, fleet } = this.parts
    return runner.run(FLEET, 1, [fleet.key, ...fleet.args(op)]).then((settled) => {
      if (op === 'join') fleet.observe(settled)
    })
  }

  /** Resolves when the sync in flight (if any) has landed. */
  landed(): Promise<void> {
    return this.flight ?? Promise.resolve()
  }

  /** Stop scheduling syncs (`sync()` still sends). */
  stop(): void {
    this.stopped = true
    this.clearTimer()
  }

  private readonly fire = (): void => {
    this.timer = undefined
    if (this.flight === undefined) void this.start()
  }

  private soon(): void {
    if (this.scheduled) return
    this.scheduled = true
    this.clearTimer()
    queueMicrotask(() => {
      this.scheduled = false
      if (this.flight === undefined) void this.start()
    })
  }

  private clearTimer(): void {
    if (this.timer === undefined) return
    this.parts.timers.clearTimeout(this.timer)
    this.timer = undefined
  }

  private start(): Promise<void> {
    this.clearTimer()
    const batch = this.queue.filter((entry) => !entry.detached)
    for (const entry of this.queue) entry.queued = false
    this.queue = []
    // The flight is set before `send` runs: what it enqueues waits for the flight to land.
    let landed!: () => void
    const flight = new Promise<void>((resolve) => {
      landed = resolve
    })
    this.flight = flight
    void this.send(batch).finally(() => {
      this.flight = undefined
      this.afterFlight()
      landed()
    })
    return flight
  }

  private afterFlight(): void {
    this.chained = this.queue.length > 0
    if (this.queue.length === 0 || this.stopped) return
    if (this.urgent) {
      this.urgent = false
      this.soon()
    } else if (this.timer === undefined && !this.scheduled) {
      this.timer = this.parts.timers.setTimeout(this.fire, this.parts.syncEveryMs)
    }
  }

  private async send(batch: SyncedKey[]): Promise<void> {
    const { parts } = this
    if (batch.length === 0) return
    if (!parts.online()) {
      // Nothing is sent while Redis is known to be down: the counts wait, and are tried again next time.
      for (const entry of batch) release(entry)
      for (const entry of batch) this.enqueue(entry)
      return
    }
    const sentAt = parts.local()
    const now = parts.scriptNow()
    const calls = this.calls(batch, now)
    const fleet = parts.fleet.counting ? this.heartbeat() : undefined
    parts.stats.calls += calls.length
    const settled = await Promise.all(calls.map((call) => call.reply))
    const receivedAt = parts.local()
    await fleet
    let ok = true
    calls.forEach((call, i) => {
      if (!this.landedCall(call, settled[i], { sentAt, receivedAt, serverClock: now === undefined }))
        ok = false
    })
    for (const entry of batch) release(entry)
    parts.stats.syncs++
    parts.stats.keysSynced += batch.length
    if (ok && this.chained && !Number.isNaN(this.lastSentAt)) {
      parts.stats.longestSyncGapMs = Math.max(parts.stats.longestSyncGapMs, receivedAt - this.lastSentAt)
    }
    this.lastSentAt = ok ? sentAt : Number.NaN
  }

  /** One call per slot (per 256 keys), each entry's pending units taken. */
  private calls(batch: readonly SyncedKey[], now: number | undefined): SyncCall[] {
    const open = new Map<number, SyncedKey[]>()
    const groups: SyncedKey[][] = []
    for (const entry of batch) {
      if (this.parts.isCluster && entry.slot === undefined) entry.slot = keySlot(entry.rkey)
      const slot = entry.slot ?? 0
      let group = open.get(slot)
      if (!group || group.length === KEYS_PER_CALL) {
        group = []
        open.set(slot, group)
        groups.push(group)
      }
      group.push(entry)
    }
    const binary = this.parts.runner.binary
    return groups.map((entries) => {
      const items: SyncItem[] = entries.map((entry) => ({
        kind: entry.kind,
        windowMs: entry.windowMs,
        deltas: entry.sent(),
      }))
      const args = syncArgs({ binary, now, grace: EXPIRY_GRACE_MS, items })
      const keys = entries.map((entry) => entry.rkey)
      return { entries, items, reply: this.parts.runner.run(SYNC, keys.length, [...keys, ...args]) }
    })
  }

  /** Apply one call's reply; false when it failed (its entries' units are pending again). */
  private landedCall(
    call: SyncCall,
    settled: Settled,
    timing: { sentAt: number; receivedAt: number; serverClock: boolean },
  ): boolean {
    let failure: CallFailure | undefined
    if (settled instanceof CallFailure) failure = settled
    else {
      try {
        const reply = parseSyncReply(settled, call.items, this.parts.runner.binary)
        if (timing.serverClock) this.parts.serverClock.observe(timing.sentAt, timing.receivedAt, reply.now)
        call.entries.forEach((entry, i) => {
          if (!entry.detached) entry.synced(reply.states[i], timing.receivedAt)
        })
        return true
      } catch (error) {
        failure = new CallFailure(error, false, false)
      }
    }
    this.parts.stats.failedCalls++
    for (const entry of call.entries) {
      entry.unsent()
      if (!entry.detached) this.enqueue(entry)
    }
    this.parts.failed(failure, call.entries.length)
    return false
  }
}

interface SyncCall {
  entries: SyncedKey[]
  items: SyncItem[]
  reply: Promise<Settled>
}

function release(entry: SyncedKey): void {
  const waiters = entry.waiters
  if (!waiters) return
  entry.waiters = undefined
  for (const resolve of waiters) resolve()
}

import type { BoundHistogram } from '@floodgate/core/internal'
import { CallFailure, type Settled } from '@floodgate/core/internal'
import { keySlot } from '../redis-key.js'
import type { ScriptRunner } from '../script-runner.js'
import { carriedUnits, LEDGER } from './key-ledger.js'
import type { ServerClock } from './server-clock.js'
import { SYNC } from './sync-script.js'
import type { SyncStats } from './sync-stats.js'
import { parseSyncReply, syncArgs } from './sync-wire.js'
import type { SyncedKey } from './synced-key.js'

/** The most keys one sync call carries, so that no script holds Redis for long. */
const KEYS_PER_CALL = 256

/**
 * How long (ms) a key's state is kept in Redis after it has become equal to a fresh one, as the RedisStore's
 * default `expiryGraceMs`: expiring later changes no decision.
 */
const EXPIRY_GRACE_MS = 2000

/** One sync script call in flight: its keys and the reply to come. */
export interface SyncCall {
  readonly entries: readonly SyncedKey[]
  readonly reply: Promise<Settled>
}

/**
 * Send `batch`: one call per Cluster slot and algorithm (one per algorithm on a standalone Redis), at most 256
 * keys each, all at once. Each entry's pending units go with it. `now` is the time for the script (undefined:
 * the server's clock).
 */
export function sendCalls(
  runner: ScriptRunner,
  batch: readonly SyncedKey[],
  now: number | undefined,
  /** Where each call's duration is recorded (the wrapped RedisStore's `sync` histogram), if anywhere. */
  timing?: BoundHistogram,
): SyncCall[] {
  const open = new Map<string, SyncedKey[]>()
  const groups: SyncedKey[][] = []
  for (const entry of batch) {
    // Its slot and algorithm never change: the group's name is made once.
    entry.callGroup ??= `${runner.isCluster ? keySlot(entry.rkey) : 0}:${entry.algorithm.id}`
    const id = entry.callGroup
    let group = open.get(id)
    if (!group || group.length === KEYS_PER_CALL) {
      group = []
      open.set(id, group)
      groups.push(group)
    }
    group.push(entry)
  }
  const calls: SyncCall[] = new Array(groups.length)
  for (let g = 0; g < groups.length; g++) {
    const entries = groups[g]!
    const count = entries.length
    const keys: string[] = new Array(count)
    for (let i = 0; i < count; i++) {
      const entry = entries[i]!
      entry.sent()
      keys[i] = entry.rkey
    }
    const first = entries[0]!
    const args = syncArgs(
      { kind: first.kind, windowMs: first.windowMs, keys, units: entries },
      { binary: runner.binary, now, grace: EXPIRY_GRACE_MS },
    )
    calls[g] = { entries, reply: runner.run(SYNC, count, args, timing) }
  }
  return calls
}

/**
 * Apply what one call read back to its entries, and release the requests waiting for them. Returns the failure
 * when it failed (its entries' units are pending again), else undefined.
 */
export function landCall(
  call: SyncCall,
  settled: Settled,
  parts: {
    binary: boolean
    serverClock: ServerClock
    /** When the call was sent and answered (local clock); `serverClock`: whether the script read the server's. */
    timing: { sentAt: number; receivedAt: number; serverClock: boolean }
    /** Called for each entry whose state was read back, once it holds it. */
    read?: (entry: SyncedKey) => void
    /** Where the units of a failed call are counted (`unitsResent`). */
    stats: SyncStats
  },
): CallFailure | undefined {
  let failure: CallFailure | undefined
  if (settled instanceof CallFailure) failure = settled
  else {
    try {
      const first = call.entries[0]!
      const reply = parseSyncReply(settled, call.entries.length, first.kind, parts.binary)
      const { timing } = parts
      if (timing.serverClock) parts.serverClock.observe(timing.sentAt, timing.receivedAt, reply.now)
      const { entries } = call
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i]!
        if (entry.detached) entry.landedForgotten()
        else {
          reply.read(i, entry.slab.ledger, entry.ledgerAt + LEDGER.KNOWN)
          entry.synced()
          parts.read?.(entry)
        }
      }
    } catch (error) {
      failure = new CallFailure(error, false, false)
    }
  }
  for (const entry of call.entries) {
    if (failure) {
      parts.stats.unitsResent += carriedUnits(entry)
      entry.unsent()
    }
    release(entry)
  }
  return failure
}

/** Let the requests waiting for `entry`'s read decide (with what it knows now). */
export function release(entry: SyncedKey): void {
  const waiters = entry.waiters
  if (!waiters) return
  entry.waiters = undefined
  for (const resolve of waiters) resolve()
}

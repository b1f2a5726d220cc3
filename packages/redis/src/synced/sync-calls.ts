import { CallFailure, type Settled } from '@floodgate/core/internal'
import { keySlot } from '../redis-key.js'
import type { ScriptRunner } from '../script-runner.js'
import type { ServerClock } from './server-clock.js'
import { parseSyncReply, readState, SYNC, type SyncItem, syncArgs } from './sync-script.js'
import type { SyncedKey } from './synced-key.js'

/** The most keys one sync call carries, so that no script holds Redis for long. */
const KEYS_PER_CALL = 256

/**
 * How long (ms) a key's state is kept in Redis after it has become equal to a fresh one, as the RedisStore's
 * default `expiryGraceMs`: expiring later changes no decision.
 */
const EXPIRY_GRACE_MS = 2000

/** One sync script call in flight: its keys, what they carry, and the reply to come. */
export interface SyncCall {
  readonly entries: readonly SyncedKey[]
  readonly items: readonly SyncItem[]
  readonly reply: Promise<Settled>
}

/**
 * Send `batch`: one call per Cluster slot (one in all on a standalone Redis), at most 256 keys each, all at once.
 * Each entry's pending units go with it. `now` is the time for the script (undefined: the server's clock).
 */
export function sendCalls(
  runner: ScriptRunner,
  batch: readonly SyncedKey[],
  now: number | undefined,
): SyncCall[] {
  const open = new Map<number, SyncedKey[]>()
  const groups: SyncedKey[][] = []
  for (const entry of batch) {
    if (runner.isCluster && entry.slot === undefined) entry.slot = keySlot(entry.rkey)
    const slot = entry.slot ?? 0
    let group = open.get(slot)
    if (!group || group.length === KEYS_PER_CALL) {
      group = []
      open.set(slot, group)
      groups.push(group)
    }
    group.push(entry)
  }
  return groups.map((entries) => {
    const items: SyncItem[] = entries.map((entry) => ({
      kind: entry.kind,
      windowArg: entry.windowArg,
      deltas: entry.sent(),
    }))
    const keys = entries.map((entry) => entry.rkey)
    const args = syncArgs({ binary: runner.binary, now, grace: EXPIRY_GRACE_MS, keys, items })
    return { entries, items, reply: runner.run(SYNC, keys.length, args) }
  })
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
  },
): CallFailure | undefined {
  let failure: CallFailure | undefined
  if (settled instanceof CallFailure) failure = settled
  else {
    try {
      const reply = parseSyncReply(settled, call.items, parts.binary)
      const { timing } = parts
      if (timing.serverClock) parts.serverClock.observe(timing.sentAt, timing.receivedAt, reply.now)
      call.entries.forEach((entry, i) => {
        if (entry.detached) return
        readState(reply.states[i], entry.known, parts.binary)
        entry.synced(timing.receivedAt)
      })
    } catch (error) {
      failure = new CallFailure(error, false, false)
    }
  }
  for (const entry of call.entries) {
    if (failure) entry.unsent()
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

import { deltaAt, latestDeltaStart } from './window-deltas.js'
import type { WindowKind } from './window-kinds.js'

/** Where one key's units to send are: window deltas (see `DELTAS`) at `carriedAt` of `ledger`. */
export interface CarriedUnits {
  readonly ledger: Float64Array
  readonly carriedAt: number
}

/** One sync call's keys: one Cluster slot, one algorithm (see the SYNC script for the format). */
export interface SyncGroup {
  readonly kind: WindowKind
  readonly windowMs: number
  readonly keys: readonly string[]
  /** Each key's units to add, by window. */
  readonly units: readonly CarriedUnits[]
}

/** KEYS then ARGV of one sync call, in one array (`group.keys` itself, which it takes over). */
export function syncArgs(
  group: SyncGroup & { readonly keys: string[] },
  parts: { binary: boolean; now: number | undefined; grace: number },
): string[] {
  // The current window is the latest any key has units in; only it and the one before still count.
  let current = Number.NEGATIVE_INFINITY
  for (const { ledger, carriedAt } of group.units)
    current = Math.max(current, latestDeltaStart(ledger, carriedAt))
  if (current === Number.NEGATIVE_INFINITY) current = 0
  const previous = current - group.windowMs
  const args = group.keys
  args.push(
    parts.binary ? 'b' : 't',
    parts.now === undefined ? '' : String(parts.now),
    String(parts.grace),
    group.kind.code,
    String(group.windowMs),
    String(previous),
    String(current),
  )
  const all = group.units
  // Numbers joined at once: one string, and no string of its own per number.
  const units: number[] = new Array(2 * all.length)
  for (let i = 0; i < all.length; i++) {
    const { ledger, carriedAt } = all[i]!
    units[2 * i] = deltaAt(ledger, carriedAt, current)
    units[2 * i + 1] = deltaAt(ledger, carriedAt, previous)
  }
  args.push(units.join(' '))
  return args
}

/** Whether this machine stores doubles little-endian, as the script writes them (then they are read in place). */
const LITTLE_ENDIAN = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f

const asText = (part: unknown): string | undefined =>
  typeof part === 'string' ? part : Buffer.isBuffer(part) ? part.toString('latin1') : undefined

const textState = (part: unknown, size: number): number[] | undefined => {
  const text = asText(part)
  if (text === undefined) return undefined
  if (text === '') return new Array(size).fill(0)
  const fields = text.split(' ').map(Number)
  return fields.length === size && fields.every(Number.isFinite) ? fields : undefined
}

/** A sync reply, checked: the clock the script used, and each key's state, written into a target on demand. */
export interface SyncReply {
  readonly now: number
  /** Write key `i`'s state (all zeros: it holds nothing) into `target` at offset `at`. */
  read(i: number, target: Float64Array, at: number): void
}

/** Check a sync reply for `count` keys of `kind`; throws (the call then counts as failed) on anything unexpected. */
export function parseSyncReply(reply: unknown, count: number, kind: WindowKind, binary: boolean): SyncReply {
  const unexpected = (what: string) => new TypeError(`Unexpected reply from the sync script: ${what}`)
  if (!Array.isArray(reply)) throw unexpected(String(reply).slice(0, 80))
  const now = Number(asText(reply[0]))
  if (!Number.isFinite(now)) throw unexpected('no clock')
  const size = kind.stateSize
  if (binary) {
    const states = reply[1]
    if (reply.length !== 2 || !Buffer.isBuffer(states) || states.length !== count * size * 8) {
      throw unexpected(`${reply.length - 1} part(s) for ${count} keys`)
    }
    if (!LITTLE_ENDIAN) {
      return {
        now,
        read(i, target, at) {
          for (let j = 0; j < size; j++) target[at + j] = states.readDoubleLE((i * size + j) * 8)
        },
      }
    }
    // One aligned copy of the states (a reply's bytes may start anywhere in the client's buffer), read as
    // doubles in place.
    const doubles = new Float64Array(count * size)
    new Uint8Array(doubles.buffer).set(states)
    return {
      now,
      read(i, target, at) {
        for (let j = 0, from = i * size; j < size; j++) target[at + j] = doubles[from + j]!
      },
    }
  }
  if (reply.length !== count + 1) throw unexpected(`${reply.length - 1} states for ${count} keys`)
  const states = reply.slice(1).map((part) => textState(part, size))
  if (states.some((state) => state === undefined)) throw unexpected('a state that is not numbers')
  return { now, read: (i, target, at) => target.set(states[i]!, at) }
}

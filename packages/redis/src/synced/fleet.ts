import { randomUUID } from 'node:crypto'

/** How long (in sync intervals, at least 5 s) a process that stopped syncing is still counted. */
const HORIZON_SYNCS = 20
const HORIZON_MIN_MS = 5000

/**
 * How many processes share the limits: fixed by the `processes` option, or counted in Redis, where every
 * process joins a sorted set (scored by the server's clock) when it is created and on every sync, and leaves on
 * `close()`. A process that stops syncing (idle, or dead) is dropped after `horizonMs`: counting it a little
 * longer only makes the others' allowances smaller.
 */
export class Fleet {
  /** This store's member name in the set. */
  readonly id = randomUUID()
  private counted = 1

  constructor(
    /** The sorted set, under the RedisStore's prefix. */
    readonly key: string,
    private readonly fixed: number | undefined,
    private readonly horizonMs: number,
  ) {}

  /** Whether processes are counted in Redis (the `'auto'` option). */
  get counting(): boolean {
    return this.fixed === undefined
  }

  /** How many processes each allowance is shared with (at least 1, this one). */
  get processes(): number {
    return this.fixed ?? this.counted
  }

  /** The ARGV of the fleet script for `op`. */
  args(op: 'join' | 'leave'): string[] {
    return [op, this.id, String(this.horizonMs)]
  }

  /** A reply of the fleet script: the number of members after this one joined. Anything else is ignored. */
  observe(reply: unknown): void {
    if (typeof reply === 'number' && Number.isSafeInteger(reply) && reply >= 1) this.counted = reply
  }
}

/** The fleet of a SyncedStore over a RedisStore's `prefix`: `processes` fixed, or counted in Redis (`'auto'`). */
export function fleetOf(prefix: string, processes: number | 'auto', syncEveryMs: number): Fleet {
  const horizonMs = Math.max(HORIZON_MIN_MS, HORIZON_SYNCS * syncEveryMs)
  return new Fleet(`${prefix}:{synced}:processes`, processes === 'auto' ? undefined : processes, horizonMs)
}

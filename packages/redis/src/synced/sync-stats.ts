/** Counters of what a SyncedStore did, for tests, benchmarks and dashboards. */
export interface SyncStats {
  /** Sync rounds completed: the regular ones (every `syncEvery`) and the reads of new keys. */
  syncs: number
  /** Sync script calls sent (one per Cluster slot and per 256 keys, per round). */
  calls: number
  /** Keys sent, over all syncs. */
  keysSynced: number
  /** Sync calls that failed (their counts were kept and sent again). */
  failedCalls: number
  /**
   * Units carried by the sync calls that failed, and sent again. A call that failed may have run all the same (a
   * client that held it while Redis came back, say, or a reply lost with its connection): then Redis counts these
   * units twice, and the shared total errs high, never low.
   */
  unitsResent: number
  /** Decisions made locally with Redis reachable. */
  local: number
  /** Decisions made by the RedisStore's script (near the limit, or near either end of a window). */
  exact: number
  /** Decisions made locally while Redis was unreachable. */
  offline: number
  /** Decisions that waited for their key to be read (new, or left alone for a while). */
  waited: number
  /**
   * The longest a unit counted locally waited to be in Redis (from the first use of a key after a regular sync to
   * the reply of the next one): the `D` of the overshoot bound.
   */
  longestSyncGapMs: number
}

export const emptyStats = (): SyncStats => ({
  syncs: 0,
  calls: 0,
  keysSynced: 0,
  failedCalls: 0,
  unitsResent: 0,
  local: 0,
  exact: 0,
  offline: 0,
  waited: 0,
  longestSyncGapMs: 0,
})

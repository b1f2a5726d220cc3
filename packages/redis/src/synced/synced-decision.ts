import type { Decision } from '@floodgate/core'
import type { DecisionSource } from '../wire.js'

/**
 * Where a SyncedStore decision came from, when it was not counted locally with Redis reachable: decided by the
 * RedisStore (`'redis'`, `'block-cache'`), or counted locally while Redis was unreachable (`'offline'`).
 */
export type SyncedSource = 'offline' | DecisionSource

/**
 * A SyncedStore decision. Counted locally (the common case, and the fast one): no `source`; otherwise `source`
 * says where it came from. `stats` counts both.
 */
export interface SyncedDecision extends Decision {
  source?: SyncedSource
}

/** Say where a decision came from; a decision counted locally online says nothing (one property less to add). */
export function tagged(decision: Decision, source: SyncedSource | 'local'): SyncedDecision {
  if (source === 'local') return decision
  const out = decision as SyncedDecision
  out.source = source
  return out
}

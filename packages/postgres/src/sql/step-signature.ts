import { type Location, qualified } from './location.js'

/**
 * What every algorithm's step function looks like, so that the dispatcher can call any of them with the same
 * arguments: the state (`NULL` when the key has none: the fresh state), the operation (`'c'` consume, `'p'`
 * peek, `'r'` refund, `'s'` charge: spend whatever the limit says, a settled cost), the time in ms, the cost, and four parameter slots, each algorithm naming its own
 * (unused slots are `NULL`). A step is pure (`IMMUTABLE`): it reads no table and returns the decision, the
 * state to store, how long to keep it (`ttl`, ms from now; 0 or less: the state is fresh again, delete it),
 * and whether to write at all (`write`: a refusal, a peek and a refund of nothing write nothing), as the
 * composite type `<table>_result`.
 */
export interface Step {
  /** The function's name after the table's (`floodgate_gcra`). */
  readonly suffix:
    | '_fixed_window'
    | '_sliding_window_counter'
    | '_sliding_window_log'
    | '_bucket'
    | '_gcra'
    | '_calendar_quota'
    | '_concurrency'
  /**
   * Whether its last parameter slot is the database's clock in ms (`concurrency`'s lease numbers): the callers
   * pass the clock there, not the slot's value, whatever time the limiter passes.
   */
  readonly clock?: true
  /** Its four parameters' names, as the body uses them (`unused_3` for a slot the algorithm has no use for). */
  readonly params: readonly [string, string, string, string]
  /** The PL/pgSQL body, given the result type's name (to cast the row it returns) and the location. */
  readonly body: (result: string, location: Location) => string
}

/** The `CREATE FUNCTION` of `step` at `location`. */
export function stepFunction(location: Location, step: Step): string {
  const [p1, p2, p3, p4] = step.params
  const result = qualified(location, '_result')
  return `CREATE OR REPLACE FUNCTION ${qualified(location, step.suffix)}(
  state float8[], op text, now_ms float8, cost float8, ${p1} float8, ${p2} float8, ${p3} float8, ${p4} float8
) RETURNS ${result}
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $step$
${step.body(result, location).trim()}
$step$;
`
}

/**
 * The one narrow shape the store talks to, whatever client it was given: built once, when the store is
 * created (see `adaptClient`), so no method asks again which client it has.
 */
export interface ScriptClient {
  /** EVALSHA `sha` with `numKeys` keys first in `args` (the first key routes the call on a Cluster). */
  evalsha(sha: string, numKeys: number, args: readonly string[]): Promise<unknown>
  /** EVAL `source` (which also loads it), with `numKeys` keys first in `args`. */
  eval(source: string, numKeys: number, args: readonly string[]): Promise<unknown>
  del(key: string): Promise<unknown>
  /** `'ready'` while connected; anything else while not; `undefined` when the client cannot tell. */
  readonly status: string | undefined
  /** Whether the client is a Redis Cluster client (keys of different slots need separate scripts). */
  readonly isCluster: boolean
  /** Whether bulk replies come back as bytes (Buffers), so that the scripts may answer in binary. */
  readonly binary: boolean
}

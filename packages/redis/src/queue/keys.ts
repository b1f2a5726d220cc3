/**
 * The queue's keys, all under one hash tag (`prefix:{name}:...`), in the order the scripts take them (see
 * `scripts/prelude.ts`), and the ARGV the scripts begin with.
 */
export interface QueueKeys {
  /** The lanes' pending lists, in drain order: what BLMPOP waits on. */
  readonly pending: readonly string[]
  /** The KEYS of a script call; `id` adds the result key of that job. */
  keys(id?: string): string[]
  /** The ARGV of a script call: lane count, now (`''`: the server's clock), lane names, then `args`. */
  argv(now: number | undefined, args: readonly (string | number)[]): string[]
}

export function queueKeys(prefix: string, name: string, lanes: readonly string[]): QueueKeys {
  const base = `${prefix}:{${name}}`
  const fixed = ['jobs', 'attempts', 'leases', 'suspects', 'stats', 'failed', 'failed-at'].map(
    (k) => `${base}:${k}`,
  )
  const pending = lanes.map((lane) => `${base}:pending:${lane}`)
  const unclaimed = lanes.map((lane) => `${base}:unclaimed:${lane}`)
  const shared = [...fixed, ...pending, ...unclaimed]
  return {
    pending,
    keys: (id) => (id === undefined ? [...shared, `${base}:result`] : [...shared, `${base}:result:${id}`]),
    argv: (now, args) => [
      String(lanes.length),
      now === undefined ? '' : String(now),
      ...lanes,
      ...args.map(String),
    ],
  }
}

/** The header modes a server may send (ours and others'). */
export type HeaderMode = 'draft-6' | 'draft-7' | 'draft-8' | 'legacy'

/** What a response said about one rate-limit policy. A field the server did not send (or sent garbled) is `undefined`. */
export interface PolicyInfo {
  /** Which headers it came from. */
  readonly mode: HeaderMode
  /** The policy's name (`draft-8`: `"ip"` in `RateLimit: "ip";r=42;t=30`); `undefined` in the other modes. */
  readonly name: string | undefined
  /** The quota: `RateLimit-Limit`, `limit=`, `q=`, `X-RateLimit-Limit`. */
  readonly limit: number | undefined
  /** Units left (a whole number >= 0): `RateLimit-Remaining`, `remaining=`, `r=`, `X-RateLimit-Remaining`. */
  readonly remaining: number | undefined
  /** Ms until the quota is back (>= 0, at most a year): `RateLimit-Reset`, `reset=`, `t=`, `X-RateLimit-Reset`. */
  readonly resetMs: number | undefined
  /** The policy's window in ms: `w=` in `RateLimit-Policy`. */
  readonly windowMs: number | undefined
  /** `draft-8`: the quota unit (`qu`: `"requests"`, `"content-bytes"`, ...). */
  readonly quotaUnit?: string
  /** `draft-8`: the partition key (`pk`), as sent (a byte sequence in base64). */
  readonly partitionKey?: string
}

/** Everything a response said about its rate limits. */
export interface RateLimitInfo {
  /** `Retry-After` in ms (>= 0, at most a year), from delta-seconds or an HTTP-date; `undefined` when absent or unreadable. */
  readonly retryAfterMs: number | undefined
  /** Every policy the response described, in every mode it used. */
  readonly policies: readonly PolicyInfo[]
}

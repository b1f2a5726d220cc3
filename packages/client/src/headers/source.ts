/**
 * Response headers as the integrations hand them over: a `Headers` (fetch), or a plain object of
 * lower-case names (undici, Node's `IncomingMessage.headers`), whose values may be arrays.
 */
export type HeaderSource =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>

/** At most this much of one header is read: a hostile server cannot make parsing slow. */
export const MAX_HEADER_LENGTH = 8_192

/** One header's value (several values joined with `, `), or `undefined`. `name` is lower case. */
export function headerValue(source: HeaderSource, name: string): string | undefined {
  const raw =
    typeof source.get === 'function'
      ? (source as { get(n: string): string | null }).get(name)
      : lookup(source as Record<string, unknown>, name)
  if (raw === null || raw === undefined) return undefined
  const value = Array.isArray(raw) ? raw.join(', ') : String(raw)
  return value.length > MAX_HEADER_LENGTH ? value.slice(0, MAX_HEADER_LENGTH) : value
}

function lookup(record: Record<string, unknown>, name: string): unknown {
  const direct = record[name]
  if (direct !== undefined) return direct
  for (const key of Object.keys(record)) if (key.toLowerCase() === name) return record[key]
  return undefined
}

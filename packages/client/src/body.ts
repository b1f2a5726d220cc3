/**
 * Whether a request body is a one-shot stream (a `ReadableStream`, a Node stream, an async iterable): it
 * cannot be sent again, so such a request is never retried. Strings, bytes, `Blob`s, forms and
 * `URLSearchParams` can be.
 */
export function isOneShotBody(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false
  const b = body as { getReader?: unknown; pipe?: unknown; [Symbol.asyncIterator]?: unknown }
  return (
    typeof b.getReader === 'function' ||
    typeof b.pipe === 'function' ||
    typeof b[Symbol.asyncIterator] === 'function'
  )
}

/** The origin of `url` (`https://api.example.com`), resolved against the page in a browser; `''` when it has none. */
export function originOf(url: string): string {
  try {
    const base = (globalThis as { location?: { href?: string } }).location?.href
    return new URL(url, base).origin
  } catch {
    return ''
  }
}

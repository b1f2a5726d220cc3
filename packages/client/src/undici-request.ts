import type { Dispatcher } from 'undici'
import { isOneShotBody, originOf } from './body.js'
import type { RequestFacts } from './engine.js'

type Headers = Dispatcher.DispatchOptions['headers']

/** Whether undici's request headers (an object, a flat `[name, value, ...]` array, or pairs) have `name`. */
export function hasHeader(headers: Headers, name: string): boolean {
  if (headers === null || headers === undefined) return false
  if (Array.isArray(headers)) {
    if (headers.length > 0 && Array.isArray(headers[0])) {
      return (headers as unknown as [string, string][]).some(([key]) => String(key).toLowerCase() === name)
    }
    for (let i = 0; i < headers.length; i += 2) if (String(headers[i]).toLowerCase() === name) return true
    return false
  }
  if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [key] of headers as Iterable<[string, string]>)
      if (String(key).toLowerCase() === name) return true
    return false
  }
  return Object.keys(headers).some((key) => key.toLowerCase() === name)
}

/** What the retry logic needs to know of an undici dispatch. */
export function dispatchFacts(opts: Dispatcher.DispatchOptions): RequestFacts {
  const origin = originOf(String(opts.origin ?? ''))
  return {
    method: String(opts.method ?? 'GET').toUpperCase(),
    url: `${origin}${opts.path ?? ''}`,
    origin,
    idempotencyKey: hasHeader(opts.headers, 'idempotency-key'),
    replayable: !isOneShotBody(opts.body),
  }
}

import { isOneShotBody, originOf } from './body.js'
import { type Attempts, createEngine, type RequestFacts } from './engine.js'
import { type ClientOptions, clientSchema } from './options.js'
import { optionalFn, parseFields } from './schema.js'
import { wait } from './sleep.js'

/** `fetch`'s signature. */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** The options of {@link createFetch}. */
export interface FetchClientOptions extends ClientOptions {
  /**
   * The `fetch` to wrap.
   * @default globalThis.fetch, looked up on every call
   * @example (await import('undici')).fetch
   */
  fetch?: FetchFunction
}

const fetchSchema = { ...clientSchema, fetch: optionalFn<FetchFunction>() }

interface Described {
  readonly facts: RequestFacts
  readonly signal: AbortSignal | undefined
  /** What to pass to `fetch` for the next attempt (a fresh clone of a `Request` with a body). */
  next(): string | URL | Request
}

function describe(input: string | URL | Request, init: RequestInit | undefined): Described {
  const request = typeof Request !== 'undefined' && input instanceof Request ? input : undefined
  const url = request ? request.url : String(input)
  let idempotencyKey = false
  try {
    idempotencyKey = new Headers(init?.headers ?? request?.headers).has('idempotency-key')
  } catch {
    // Headers fetch itself will refuse: that attempt fails on its own.
  }
  const ownBody = init?.body !== undefined && init.body !== null
  // A Request's own body is a stream, but a clone keeps a copy of it for the next attempt.
  const cloneEach = !ownBody && request !== undefined && request.body !== null
  return {
    facts: {
      method: (init?.method ?? request?.method ?? 'GET').toUpperCase(),
      url,
      origin: originOf(url),
      idempotencyKey,
      replayable: ownBody ? !isOneShotBody(init!.body) : !(cloneEach && request!.bodyUsed),
    },
    signal: init?.signal ?? request?.signal ?? undefined,
    next: () => (cloneEach && !request!.bodyUsed ? request!.clone() : input),
  }
}

async function discard(response: Response): Promise<void> {
  try {
    await response.body?.cancel()
  } catch {
    // Already read or errored: nothing to free.
  }
}

/**
 * A `fetch` that backs off politely: it retries 429 and 503 responses of idempotent requests after
 * `Retry-After` (plus jitter) or an exponential backoff with full jitter, at most `maxAttempts` times in
 * all and within a retry budget, honours the request's `AbortSignal` while it waits, and, with `pace`,
 * holds requests back while the server says the quota is spent. It runs in browsers too. Invalid options
 * throw a `ClientConfigError` here, not on the first request.
 *
 * @example
 * const fetch = createFetch({ maxAttempts: 4, onRetry: (e) => console.warn(e) })
 * const res = await fetch('https://api.example.com/items') // the last response when every attempt was refused
 */
export function createFetch(options?: FetchClientOptions): FetchFunction {
  const settings = parseFields(fetchSchema, options)
  const engine = createEngine(settings)
  return async function politeFetch(input, init) {
    const send = settings.fetch ?? globalThis.fetch
    const request = describe(input, init)
    const state: Attempts = { attempt: 1, previousBackoffMs: undefined }
    for (;;) {
      const pause = engine.paceDelay(request.facts.origin)
      if (pause > 0) await wait(settings.sleep, pause, request.signal)
      const response = await send(request.next(), init)
      const verdict = engine.verdict(request.facts, state, response.status, response.headers)
      if (!verdict.retry) return response
      await discard(response)
      await wait(settings.sleep, verdict.delayMs, request.signal)
      state.attempt++
    }
  }
}

/**
 * Every HTTP answer Floodgate gives, from the limiter, the priority queue, the load shedder and the Redis
 * queue: the request goes on with `headers` set on its response, or it is answered here. A refusal is a value.
 * Adapters read `kind` and write it out; header names are in lower case.
 */
export type Answer = PassAnswer | HttpAnswer

/** The request goes on to the app, with these headers on its response (none from a gate). */
export interface PassAnswer {
  readonly kind: 'pass'
  readonly headers: Readonly<Record<string, string>>
}

/** The request is answered here: a refusal (429, 403, 503, ...) or an error answer (500). */
export interface HttpAnswer {
  readonly kind: 'answer'
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly contentType: string
}

/** No headers (a gate's pass, a skipped request). Shared: never mutate it. */
export const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({})

/**
 * Whole seconds, rounded up: how every header and body gives a duration (`RateLimit-Reset`, `Retry-After`,
 * `retryAfter`). A reset of 0.2 s is 1, never 0 while anything is pending; nothing pending is 0.
 */
export const seconds = (ms: number): number => (ms <= 0 ? 0 : Math.ceil(ms / 1000))

/** A `Retry-After` in whole seconds: rounded up, at least 1 (a client told 0 would retry at once). */
export const retryAfterSeconds = (ms: number): number => Math.max(1, seconds(ms))

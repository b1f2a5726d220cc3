import { backoffDelay, retryDelay } from './backoff.js'
import { readRateLimit } from './headers/index.js'
import type { HeaderSource } from './headers/source.js'
import type { RateLimitInfo } from './headers/types.js'
import { callHook } from './hook.js'
import type { ClientSettings, RetryEvent } from './options.js'
import { createPacer, type Pacer } from './pacer.js'

/** What the integrations know of a request, before it is sent. */
export interface RequestFacts {
  /** Upper case. */
  readonly method: string
  readonly url: string
  /** Where pacing is kept: `https://api.example.com`. */
  readonly origin: string
  /** Whether it carries an `Idempotency-Key` header. */
  readonly idempotencyKey: boolean
  /** Whether its body can be sent again (none, a string, bytes, a form: yes; a one-shot stream: no). */
  readonly replayable: boolean
}

/** Why a refused response was returned instead of retried. */
export type GiveUpReason = 'attempts' | 'method' | 'body' | 'retry-after' | 'budget'

/** What to do with a response: return it, or wait `delayMs` and send the request again. */
export type Verdict =
  | { readonly retry: false; readonly reason: GiveUpReason | undefined }
  | { readonly retry: true; readonly delayMs: number }

/** One request's progress through its attempts. */
export interface Attempts {
  /** The number of the attempt under way: 1 for the first. */
  attempt: number
  /** The backoff drawn for the previous retry (`'decorrelated'` grows from it). */
  previousBackoffMs: number | undefined
}

/**
 * What the server asked to wait: `Retry-After`, else the reset of a policy with nothing left (GitHub sends
 * only `X-RateLimit-Reset` on its refusals); `undefined` when it said neither.
 */
export function serverWait(info: RateLimitInfo): number | undefined {
  if (info.retryAfterMs !== undefined) return info.retryAfterMs
  let wait: number | undefined
  for (const p of info.policies) {
    if (p.remaining === 0 && p.resetMs !== undefined) wait = Math.max(wait ?? 0, p.resetMs)
  }
  return wait
}

/** The retry logic both integrations share: pacing, the retry decision, the budget, `onRetry`. */
export interface Engine {
  readonly settings: ClientSettings
  /** Ms to hold a request to `origin` back before sending it. */
  paceDelay(origin: string): number
  /** A response to attempt `state.attempt` arrived: return it, or retry after a wait. */
  verdict(request: RequestFacts, state: Attempts, status: number, headers: HeaderSource): Verdict
}

export function createEngine(settings: ClientSettings): Engine {
  const { retryOn, retryMethods, maxAttempts, maxRetryAfter, budget, now, onRetry } = settings
  const pacer: Pacer | undefined = settings.pace
    ? createPacer({ paceRemaining: settings.paceRemaining, maxDelayMs: settings.maxPaceDelay })
    : undefined

  function giveUpReason(request: RequestFacts, state: Attempts, wait: number | undefined) {
    if (state.attempt >= maxAttempts) return 'attempts'
    if (!retryMethods.includes(request.method) && !request.idempotencyKey) return 'method'
    if (!request.replayable) return 'body'
    if (wait !== undefined && wait > maxRetryAfter) return 'retry-after'
    if (budget && !budget.spend()) return 'budget'
    return undefined
  }

  /** A response that is not retried: one the server answered normally (below 500) refills the budget. */
  function settled(state: Attempts, status: number): Verdict {
    if (budget && status < 500) budget.success(state.attempt > 1)
    return { retry: false, reason: undefined }
  }

  return {
    settings,
    paceDelay: (origin) => pacer?.delayFor(origin, now()) ?? 0,
    verdict(request, state, status, headers) {
      const retryable = retryOn.includes(status)
      if (!retryable && pacer === undefined) return settled(state, status)
      const at = now()
      const info = readRateLimit(headers, at)
      pacer?.observe(request.origin, info, at)
      if (!retryable) return settled(state, status)
      const wait = serverWait(info)
      const reason = giveUpReason(request, state, wait)
      if (reason !== undefined) return { retry: false, reason }

      const backoffMs = backoffDelay({
        attempt: state.attempt,
        baseMs: settings.baseDelay,
        maxMs: settings.maxDelay,
        jitter: settings.jitter,
        random: settings.random,
        previousMs: state.previousBackoffMs,
      })
      state.previousBackoffMs = backoffMs
      const delayMs = retryDelay(wait, backoffMs, settings.jitter)
      const event: RetryEvent = {
        attempt: state.attempt,
        delayMs,
        serverWaitMs: wait,
        status,
        method: request.method,
        url: request.url,
        info,
      }
      callHook('onRetry', onRetry, event)
      return { retry: true, delayMs }
    },
  }
}

import { guardedCall, HookFailure } from '../guarded-call.js'
import { ownCopy } from '../store-keys/own-copy.js'
import { RateLimitRequestError } from './errors.js'

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/**
 * What a lookup settled to: a plan name, nothing (an unknown key), or the error it failed with. A cached
 * answer is one object until it expires: `caller` keeps what the resolver made of it (the key's caller), so
 * a request whose plan is cached derives nothing again.
 */
export type PlanAnswer<C = unknown> = Answer<C> | { error: RateLimitRequestError }

interface Answer<C> {
  readonly plan: string | undefined
  caller?: C
}

interface Entry<C> {
  answer: Answer<C>
  expires: number
}

/**
 * The app's `planOf`, bounded and cached (see {@link compilePlanLookup}). A key is looked up by its
 * `cacheKey` (`cacheKeyOf(apiKey)`: the caller makes it once per request, hashing a long key once).
 */
export interface PlanLookup<N, C> {
  /** The answer for `apiKey`: cached, the lookup in flight, or a new lookup. Never rejects. */
  answer(apiKey: string, cacheKey: string, req: N): PlanAnswer<C> | Promise<PlanAnswer<C>>
  /** The answer for a key that needs no new call of `planOf`: cached, or in flight; else undefined. */
  known(cacheKey: string): PlanAnswer<C> | Promise<PlanAnswer<C>> | undefined
}

/**
 * The app's `planOf`, bounded and cached: answers (unknown keys too) are kept for `ttl` ms, at most
 * `maxKeys` of them (the oldest dropped first), each under its key's `cacheKeyOf` (a key longer than 128
 * characters is kept as its digest), so the cache holds a bounded number of bytes whatever keys clients send
 * (an expired answer counts among them until its key is asked again or it is the oldest);
 * with `cache: false` nothing is kept once a lookup settles. Concurrent lookups of one key share one call; a
 * lookup that throws, rejects, answers something that is not a string, or takes longer than `timeoutMs`
 * settles as an error (and is not cached). Never rejects.
 */
export function compilePlanLookup<N, C = unknown>(parts: {
  planOf: (apiKey: string, req: N) => unknown
  cache: false | { maxKeys: number; ttl: number }
  timeoutMs: number
  now: () => number
}): PlanLookup<N, C> {
  const { planOf, cache, timeoutMs, now } = parts
  const entries = new Map<string, Entry<C>>()
  const pending = new Map<string, Promise<PlanAnswer<C>>>()

  const failed = (message: string, cause?: unknown): PlanAnswer<C> => ({
    error: new RateLimitRequestError('ERR_FLOODGATE_PLAN_LOOKUP_FAILED', message, {
      cause,
      option: 'planOf',
    }),
  })
  const settle = (cacheKey: string, value: unknown): PlanAnswer<C> => {
    if (value !== undefined && value !== null && typeof value !== 'string') {
      return failed(`\`planOf\` answered ${typeof value}, not a plan name or nothing`)
    }
    const plan = value === null || value === '' ? undefined : (value ?? undefined)
    if (!cache) return { plan, caller: undefined }
    // An expired answer stays until its key is asked again: when the plan is the same, the new answer is the
    // old one, its caller kept (its key hashed and store keys built once per key, not once per `ttl`).
    const expired = entries.get(cacheKey)
    const answer: Answer<C> =
      expired !== undefined && expired.answer.plan === plan ? expired.answer : { plan, caller: undefined }
    if (expired !== undefined) entries.delete(cacheKey)
    else if (entries.size >= cache.maxKeys) entries.delete(entries.keys().next().value!)
    entries.set(ownCopy(cacheKey), { answer, expires: now() + cache.ttl })
    return answer
  }

  function ask(apiKey: string, cacheKey: string, req: N): PlanAnswer<C> | Promise<PlanAnswer<C>> {
    const value = guardedCall(planOf, apiKey, req)
    if (value instanceof HookFailure)
      return failed(`\`planOf\` threw: ${messageOf(value.error)}`, value.error)
    if (!(value instanceof Promise)) return settle(cacheKey, value)
    const bounded = new Promise<PlanAnswer<C>>((resolve) => {
      const timer = setTimeout(
        () => resolve(failed(`\`planOf\` did not answer within ${timeoutMs} ms`)),
        timeoutMs,
      )
      ;(timer as { unref?: () => void }).unref?.()
      value.then((v) => {
        clearTimeout(timer)
        resolve(
          v instanceof HookFailure
            ? failed(`\`planOf\` rejected: ${messageOf(v.error)}`, v.error)
            : settle(cacheKey, v),
        )
      })
    }).finally(() => pending.delete(cacheKey))
    pending.set(cacheKey, bounded)
    return bounded
  }

  function known(cacheKey: string): PlanAnswer<C> | Promise<PlanAnswer<C>> | undefined {
    const entry = cache ? entries.get(cacheKey) : undefined
    if (entry !== undefined && entry.expires > now()) return entry.answer
    return pending.get(cacheKey)
  }
  return {
    known,
    answer: (apiKey, cacheKey, req) => known(cacheKey) ?? ask(apiKey, cacheKey, req),
  }
}

import { z } from 'zod'
import type { Duration } from '../duration.js'
import { algorithmSchema, storeSchema } from '../limiter.js'
import type { Algorithm, Clock, Decision, Store } from '../types.js'
import { duration } from '../validate.js'
import { parseRange } from './allow-list.js'
import type { HeadersOption } from './headers.js'
import type { KeySpec } from './keys.js'
import type { RequestInfo } from './request-info.js'
import type { ResponseFormat } from './responses.js'

/** A function of the framework's request (Express `req`, Fastify `request`, Koa `ctx`) and its {@link RequestInfo}. */
export type RequestFunction<N, T> = (req: N, info: RequestInfo<N>) => T

/** One policy of a layered limit. */
export interface PolicyOptions<N = any> {
  /**
   * The policy's name: in headers (`draft-8`), in the 429 body's `policy`, in keys. Letters, digits and
   * `_ . : ~ / -`, at most 64.
   * @default the key's name when it is a string (`'ip'`, `'user'`, ...), else `'default'`
   * @example 'export'
   */
  name?: string
  /**
   * What the policy counts per: `'ip'`, `'user'`, `'endpoint'`, `'global'`, a function of the request, or
   * an array of these.
   * @default 'ip'
   * @example ['user', 'endpoint']
   */
  key?: KeySpec<N>
  /**
   * The algorithm and its quota.
   * @example tokenBucket({ capacity: 50, refillRate: 10, interval: '1s' })
   */
  algorithm: Algorithm
  /**
   * What one request spends in this policy: a number, or a function of the request.
   * @default the top-level `cost`, else 1
   * @example (req) => (req.method === 'GET' ? 1 : 5)
   */
  cost?: number | RequestFunction<N, number>
}

/** What a custom refusal handler returns; anything left out keeps its default. */
export interface LimitedResponse {
  /** @default 429 (`statusCode`) */
  status?: number
  /** A string is sent as is; anything else as JSON. */
  body?: unknown
  /** @default 'application/json; charset=utf-8' */
  contentType?: string
  /** Added to (or replacing) the rate-limit headers. */
  headers?: Record<string, string>
}

/** The options of `rateLimit()` in every adapter, and of {@link createRateLimitHandler}. */
export interface RateLimitOptions<N = any> {
  /**
   * Short form: requests per `window`, per `key`, with a sliding window counter. Not with `limits`.
   * @default 100
   * @example 100
   */
  limit?: number
  /**
   * Short form: the window of `limit`, ms or a string (`'10s'`, `'1m'`, `'1h'`). Not with `limits`.
   * @default '1m'
   * @example '15m'
   */
  window?: Duration
  /**
   * Short form: the algorithm of the single policy, instead of `limit` and `window`. Not with `limits`.
   * @default slidingWindowCounter({ limit, window })
   * @example gcra({ rate: 10, period: '1s', burst: 20 })
   */
  algorithm?: Algorithm
  /**
   * Short form: what the single policy counts per. Not with `limits`.
   * @default 'ip'
   * @example 'user'
   */
  key?: KeySpec<N>
  /**
   * Short form: the single policy's name. Not with `limits`.
   * @default the key's name when it is a string, else `'default'`
   * @example 'api'
   */
  name?: string
  /**
   * Full form: several policies, checked together. Every one must allow; a refused request spends nothing
   * in any of them.
   * @example [{ name: 'ip', key: 'ip', algorithm: tokenBucket({...}) }, { name: 'user', key: 'user', algorithm: slidingWindowCounter({...}) }]
   */
  limits?: readonly PolicyOptions<N>[]
  /**
   * Where state lives; share one store between instances to share counters.
   * @default new MemoryStore()
   * @example new RedisStore({ client: new Redis() })
   */
  store?: Store
  /**
   * Put before every key (`prefix:policy|...`), so that two limiters sharing a store never share state.
   * @default '' (none)
   * @example 'api'
   */
  prefix?: string
  /**
   * The time source, in ms, passed to the store. Without it the store keeps its own time (the Redis
   * server's, for RedisStore). Tests pass a virtual clock.
   * @example clock.now
   */
  clock?: Clock
  /**
   * How `'user'` keys find the user: a function of the request. A request without one (before login) is
   * counted by its IP in that policy, never in one shared bucket.
   * @example (req) => req.user?.id
   */
  user?: RequestFunction<N, string | number | null | undefined>
  /**
   * Which rate-limit headers every response carries: `'draft-6'`, `'draft-7'`, `'draft-8'`, `'legacy'`,
   * one draft plus `'legacy'` in an array, or `false`. 429s always carry `Retry-After`.
   * @default 'draft-6'
   * @example ['draft-8', 'legacy']
   */
  headers?: HeadersOption
  /**
   * What a request spends in each policy that sets no `cost` of its own: a number, or a function of the request.
   * @default 1
   * @example (req) => Number(req.headers['x-batch-size'] ?? 1)
   */
  cost?: number | RequestFunction<N, number>
  /**
   * Requests for which this returns `true` are not counted and get no headers.
   * @example (req) => req.path === '/health'
   */
  skip?: RequestFunction<N, boolean | Promise<boolean>>
  /**
   * Client addresses and CIDR ranges (IPv4 and IPv6) that are never limited.
   * @default []
   * @example ['127.0.0.1', '10.0.0.0/8', '2001:db8::/32']
   */
  allowList?: readonly string[]
  /**
   * How many leading bits of an IPv6 address make one client for `'ip'` keys: a client owns a whole /64
   * and could rotate through it. `false` (or 128) keys by the full address.
   * @default 64
   * @example 56
   */
  ipv6Subnet?: number | false
  /**
   * Shadow mode: count, send headers and call `onLimited`, but never refuse.
   * @default false
   */
  dryRun?: boolean
  /**
   * Called on every refused request (in dry run too), before the response is sent.
   * @example (req, outcome) => log.warn({ policy: outcome.decision?.policy }, 'rate limited')
   */
  onLimited?: (req: N, outcome: import('./handler.js').Outcome) => void
  /**
   * Called when a request cannot be decided: the store failed or timed out, an option function threw, or
   * the client address is unknown. Without it, the first such error of each kind is a process warning and
   * later ones are silent.
   * @example (error, req) => log.error({ err: error }, 'rate limiter failed')
   */
  onError?: (error: unknown, req: N, info: RequestInfo<N>) => void
  /**
   * What happens when the store throws, rejects or times out: `'open'` lets the request through without
   * rate-limit headers; `'closed'` answers 503. A RedisStore applies its own `failMode` first; this is the
   * backstop. An unknown client address is always refused (500), never counted under a shared key.
   * @default 'open'
   */
  failMode?: 'open' | 'closed'
  /**
   * The longest wait for an asynchronous store before `failMode` applies; `false` waits forever.
   * @default '5s'
   * @example '500ms'
   */
  storeTimeout?: Duration | false
  /**
   * Give back what a request spent when its response has status >= 400 (or the connection closed first).
   * @default false
   */
  skipFailedRequests?: boolean
  /**
   * Give back what a request spent when its response has status < 400 (count only failures: login attempts).
   * @default false
   */
  skipSuccessfulRequests?: boolean
  /**
   * The 429 body's message, or a function of the request and the refusing decision.
   * @default 'Too many requests, retry in 30 seconds.' (with the actual wait)
   * @example 'Slow down.'
   */
  message?: string | ((req: N, info: RequestInfo<N>, decision: Decision) => string)
  /**
   * The status of a refusal.
   * @default 429
   */
  statusCode?: number
  /**
   * The 429 body: `'json'` is `{ error, message, retryAfter, policy }`; `'problem+json'` is RFC 9457
   * problem details (`application/problem+json`).
   * @default 'json'
   */
  format?: ResponseFormat
  /**
   * Your own refusal: return the status, body, content type or headers to change; the rest stays default.
   * @example (req, outcome) => ({ body: { error: 'slow down', wait: outcome.decision?.retryAfterMs } })
   */
  handler?: (
    req: N,
    outcome: import('./handler.js').Outcome,
    info: RequestInfo<N>,
  ) => LimitedResponse | undefined | Promise<LimitedResponse | undefined>
  /**
   * How a shaped request waits its `delayMs` before it proceeds. Tests inject one that records the delay.
   * @default (ms) => new Promise((resolve) => setTimeout(resolve, ms))
   */
  sleep?: (ms: number) => Promise<void>
}

const fn = (expected: string) =>
  z.custom<(...args: any[]) => any>((v) => typeof v === 'function', { error: expected })

const KEY_EXPECTED =
  "'ip', 'user', 'endpoint', 'global', a function of the request, or a non-empty array of these"
const keyPart = z.union([z.enum(['ip', 'user', 'endpoint', 'global']), fn(KEY_EXPECTED)], {
  error: KEY_EXPECTED,
})
const keySchema = z.union([keyPart, z.array(keyPart).min(1, { error: KEY_EXPECTED })], {
  error: KEY_EXPECTED,
})

const NAME_EXPECTED = "a name of letters, digits and '_ . : ~ / -', at most 64 characters"
const nameSchema = z.string({ error: NAME_EXPECTED }).regex(/^[\w.:~/-]{1,64}$/, { error: NAME_EXPECTED })

const COST_EXPECTED = 'a finite number > 0 or a function of the request returning one'
const costSchema = z.union(
  [
    z.number().refine((n) => Number.isFinite(n) && n > 0, { error: COST_EXPECTED }),
    z.custom<() => number>((v) => typeof v === 'function'),
  ],
  { error: COST_EXPECTED },
)

const MODES = ['draft-6', 'draft-7', 'draft-8', 'legacy'] as const
const HEADERS_EXPECTED = `one of ${MODES.map((m) => `'${m}'`).join(', ')}, an array of one draft and 'legacy', true or false`
const headersSchema = z.union(
  [
    z.boolean(),
    z.enum(MODES),
    z
      .array(z.enum(MODES))
      .refine((modes) => modes.filter((m) => m !== 'legacy').length <= 1, { error: HEADERS_EXPECTED }),
  ],
  { error: HEADERS_EXPECTED },
)

const IPV6_EXPECTED = 'a whole number of bits from 1 to 128, or false'
const RANGE_EXPECTED = "an IP address or CIDR range like '10.0.0.0/8' or '2001:db8::/32'"

const policySchema = z.strictObject({
  name: nameSchema.optional(),
  key: keySchema.optional(),
  algorithm: algorithmSchema,
  cost: costSchema.optional(),
})

const SHORT_FORM = ['limit', 'window', 'algorithm', 'key', 'name'] as const

/** The middleware options' schema: validated when the middleware is created, never on a request. */
export const rateLimitOptionsSchema = z
  .strictObject({
    limit: z
      .number({ error: 'a whole number >= 1' })
      .refine((n) => Number.isSafeInteger(n) && n >= 1, { error: 'a whole number >= 1' })
      .optional(),
    window: duration().optional(),
    algorithm: algorithmSchema.optional(),
    key: keySchema.optional(),
    name: nameSchema.optional(),
    limits: z
      .array(policySchema, { error: 'a non-empty array of policies { name, key, algorithm, cost }' })
      .min(1, { error: 'a non-empty array of policies { name, key, algorithm, cost }' })
      .optional(),
    store: storeSchema.optional(),
    prefix: z
      .string({ error: 'a string without "|"' })
      .refine((s) => !s.includes('|'), { error: 'a string without "|"' })
      .optional(),
    clock: fn('a function returning ms').optional(),
    user: fn('a function of the request returning the user id').optional(),
    headers: headersSchema.optional(),
    cost: costSchema.optional(),
    skip: fn('a function of the request returning a boolean').optional(),
    allowList: z
      .array(
        z
          .string({ error: RANGE_EXPECTED })
          .refine((s) => parseRange(s) !== undefined, { error: RANGE_EXPECTED }),
        {
          error: `an array of ${RANGE_EXPECTED}s`,
        },
      )
      .optional(),
    ipv6Subnet: z
      .union(
        [
          z.literal(false),
          z.number().refine((n) => Number.isInteger(n) && n >= 1 && n <= 128, { error: IPV6_EXPECTED }),
        ],
        {
          error: IPV6_EXPECTED,
        },
      )
      .optional(),
    dryRun: z.boolean({ error: 'true or false' }).optional(),
    onLimited: fn('a function (req, outcome) => void').optional(),
    onError: fn('a function (error, req, info) => void').optional(),
    failMode: z.enum(['open', 'closed'], { error: "'open' or 'closed'" }).optional(),
    storeTimeout: z
      .union([z.literal(false), duration()], { error: "a duration like '500ms' or false" })
      .optional(),
    skipFailedRequests: z.boolean({ error: 'true or false' }).optional(),
    skipSuccessfulRequests: z.boolean({ error: 'true or false' }).optional(),
    message: z
      .union([z.string(), fn('')], { error: 'a string or a function (req, info, decision) => string' })
      .optional(),
    statusCode: z
      .number({ error: 'an HTTP status from 400 to 599' })
      .refine((n) => Number.isInteger(n) && n >= 400 && n <= 599, { error: 'an HTTP status from 400 to 599' })
      .optional(),
    format: z.enum(['json', 'problem+json'], { error: "'json' or 'problem+json'" }).optional(),
    handler: fn('a function (req, outcome, info) => { status, body, contentType, headers }').optional(),
    sleep: fn('a function (ms) => Promise<void>').optional(),
  })
  .superRefine((o, ctx) => {
    if (o.limits) {
      for (const option of SHORT_FORM) {
        if (o[option] !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [option],
            message: `left out when \`limits\` is given (set it on a policy in \`limits\`)`,
          })
          return
        }
      }
      const seen = new Set<string>()
      o.limits.forEach((policy, i) => {
        const name = policy.name ?? defaultName(policy.key)
        if (seen.has(name)) {
          ctx.addIssue({
            code: 'custom',
            path: ['limits', i, 'name'],
            message: `a name no other policy has (policy names default to their key: give each a \`name\`)`,
          })
        }
        seen.add(name)
      })
    } else if (o.algorithm && (o.limit !== undefined || o.window !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [o.limit !== undefined ? 'limit' : 'window'],
        message: 'left out when `algorithm` is given (the algorithm carries its own quota)',
      })
      return
    }
    const keys = o.limits ? o.limits.map((p) => p.key ?? 'ip') : [o.key ?? 'ip']
    if (!o.user && keys.some((k) => k === 'user' || (Array.isArray(k) && k.includes('user')))) {
      ctx.addIssue({
        code: 'custom',
        path: ['user'],
        message: "a function of the request returning the user id, since a policy's key is 'user'",
      })
    }
  })

/** A policy's default name: its key when that is a string, else `'default'`. */
export function defaultName(key: unknown): string {
  return typeof key === 'string' ? key : key === undefined ? 'ip' : 'default'
}

const POLICY_OPTIONS = ['limit', 'window', 'algorithm', 'key', 'name', 'limits'] as const

/**
 * Per-route options over app-wide ones: the route's own policy (`limit`, `window`, `algorithm`, `key`,
 * `name` or `limits`) replaces the app's policy whole; every other option the route leaves out is the app's.
 *
 * @example mergeRateLimitOptions({ limit: 100, store }, { limit: 5, window: '1m' }) // { limit: 5, window: '1m', store }
 */
export function mergeRateLimitOptions<N>(
  base: RateLimitOptions<N>,
  route: RateLimitOptions<N>,
): RateLimitOptions<N> {
  const merged: Record<string, unknown> = { ...base }
  if (POLICY_OPTIONS.some((option) => route[option] !== undefined)) {
    for (const option of POLICY_OPTIONS) delete merged[option]
  }
  for (const [option, value] of Object.entries(route)) if (value !== undefined) merged[option] = value
  return merged as RateLimitOptions<N>
}

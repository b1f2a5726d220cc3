// What each answer of a limiter says: the bodies of the refusals (429, 413, 403) and of the answers to requests
// no policy decided (503, 500, and a usage plan's 401 and 403), in Floodgate's JSON or as RFC 9457 problem
// details. respond.ts decides which answer a request gets; this file writes its text.

/** The refusal body's format: our JSON, or RFC 9457 problem details. */
export type ResponseFormat = 'json' | 'problem+json'

export const JSON_TYPE = 'application/json; charset=utf-8'
export const PROBLEM_TYPE = 'application/problem+json'

/** The status of a request whose cost is above a policy's limit: it can never pass, so waiting is no answer. */
export const COST_EXCEEDS_LIMIT_STATUS = 413

/** The default message: `Too many requests, retry in 30 seconds.` */
export const retryMessage = (retryAfter: number): string =>
  `Too many requests, retry in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`

/** The reason phrase of the statuses a limiter sends. */
function statusTitle(status: number): string {
  switch (status) {
    case 429:
      return 'Too Many Requests'
    case 413:
      return 'Content Too Large'
    case 503:
      return 'Service Unavailable'
    case 500:
      return 'Internal Server Error'
    case 403:
      return 'Forbidden'
    default:
      return 'Rate Limited'
  }
}

/** Builds a refusal's body from the refusing policy, the wait in seconds and the message. */
export type BodyBuilder = (policy: string, retryAfter: number, message: string | undefined) => string

/**
 * Compile the body builder once. The default body is
 * `{ "error": "rate_limited", "message": "Too many requests, retry in 30 seconds.", "retryAfter": 30, "policy": "ip" }`;
 * `'problem+json'` gives RFC 9457 `{ type, title, status, detail, retryAfter, policy }`. Bodies with the
 * default message are cached per policy and wait, so a refusal costs no serialisation.
 */
export function compileBody(format: ResponseFormat, status: number): BodyBuilder {
  const title = statusTitle(status)
  const build =
    format === 'json'
      ? (policy: string, retryAfter: number, message: string) =>
          JSON.stringify({ error: 'rate_limited', message, retryAfter, policy })
      : (policy: string, retryAfter: number, message: string) =>
          JSON.stringify({ type: 'about:blank', title, status, detail: message, retryAfter, policy })
  // Per policy, bodies indexed by the wait in seconds: a refusal looks its body up without building a key.
  const cache = new Map<string, (string | undefined)[]>()
  return (policy, retryAfter, message) => {
    if (message !== undefined || retryAfter > 3_600)
      return build(policy, retryAfter, message ?? retryMessage(retryAfter))
    let bodies = cache.get(policy)
    if (bodies === undefined) {
      bodies = []
      cache.set(policy, bodies)
    }
    let body = bodies[retryAfter]
    if (body === undefined) {
      body = build(policy, retryAfter, retryMessage(retryAfter))
      bodies[retryAfter] = body
    }
    return body
  }
}

/**
 * The body of a request that can never pass: `{ "error": "cost_exceeds_limit", "message", "policy", "cost",
 * "limit" }`, or its problem-details form. It carries no `retryAfter`: waiting does not help.
 */
export function costExceedsLimitBody(
  format: ResponseFormat,
  policy: string,
  cost: number,
  limit: number,
): string {
  const message = `This request costs ${cost}, more than the ${limit} the '${policy}' policy ever allows at once; it cannot pass however long it waits.`
  if (format === 'json') return JSON.stringify({ error: 'cost_exceeds_limit', message, policy, cost, limit })
  const status = COST_EXCEEDS_LIMIT_STATUS
  return JSON.stringify({
    type: 'about:blank',
    title: statusTitle(status),
    status,
    detail: message,
    policy,
    cost,
    limit,
  })
}

/** The RateLimit draft's problem type for a request over its quota. */
const QUOTA_EXCEEDED_TYPE = 'https://iana.org/assignments/http-problem-types#quota-exceeded'

/**
 * The body of a request over its usage plan's quota: `{ error: 'quota_exceeded', message: 'Limit Exceeded',
 * retryAfter, policy }`, or, as problem details, the RateLimit draft's `quota-exceeded` type with
 * `violated-policies`.
 */
export function quotaExceededBody(format: ResponseFormat, policy: string, retryAfter: number): string {
  if (format === 'json') {
    return JSON.stringify({ error: 'quota_exceeded', message: 'Limit Exceeded', retryAfter, policy })
  }
  return JSON.stringify({
    type: QUOTA_EXCEEDED_TYPE,
    title: 'Limit Exceeded',
    status: 429,
    detail: `The quota is used up; it comes back in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
    'violated-policies': [policy],
    retryAfter,
    policy,
  })
}

/** The body of a request whose client address is unknown (see `ERR_FLOODGATE_NO_CLIENT_ADDRESS`). */
export const NO_ADDRESS_BODY = JSON.stringify({
  error: 'client_address_unknown',
  message: 'The client address is unknown, so this request cannot be rate limited.',
})

/** The body when the store failed and `failMode` is `'closed'`. */
export const UNAVAILABLE_BODY = JSON.stringify({
  error: 'rate_limiter_unavailable',
  message: 'The rate limiter is unavailable; try again shortly.',
})

/** The body when a refusal could not be sent as configured (see `ERR_FLOODGATE_INVALID_RESPONSE`). */
export const INTERNAL_ERROR_BODY = JSON.stringify({
  error: 'internal_error',
  message: 'The server could not send its answer to this request.',
})

/**
 * The body of a denied request (`denyList`, `deny`): 403 `{ "error": "denied", "message" }`, or its
 * problem-details form. No `retryAfter`: waiting does not help.
 */
export function deniedBody(format: ResponseFormat): string {
  const message = 'This client is not allowed.'
  if (format === 'json') return JSON.stringify({ error: 'denied', message })
  return JSON.stringify({ type: 'about:blank', title: statusTitle(403), status: 403, detail: message })
}

/** The default message of a banned request: `Too many refused requests; banned for 3600 seconds.` */
export const bannedMessage = (retryAfter: number): string =>
  `Too many refused requests; banned for ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`

/**
 * The body of a banned request (a policy's `ban`): 403 `{ "error": "banned", "message", "retryAfter", "policy" }`,
 * or its problem-details form.
 */
export function bannedBody(format: ResponseFormat, policy: string, retryAfter: number): string {
  const message = bannedMessage(retryAfter)
  if (format === 'json') return JSON.stringify({ error: 'banned', message, retryAfter, policy })
  return JSON.stringify({
    type: 'about:blank',
    title: statusTitle(403),
    status: 403,
    detail: message,
    retryAfter,
    policy,
  })
}

/** The answers of a request without a usage plan (plans.ts): 401, 403, 503, 500. */
export const PLAN_BODIES = {
  /** No API key, and no `anonymousPlan` (401). */
  apiKeyRequired: JSON.stringify({ error: 'api_key_required', message: 'This API needs an API key.' }),
  /** An API key no plan knows (403). */
  apiKeyUnknown: JSON.stringify({ error: 'api_key_unknown', message: 'This API key is not known.' }),
  /** The plan of an API key could not be looked up (503). */
  planUnavailable: JSON.stringify({
    error: 'plan_unavailable',
    message: "The API key's plan could not be looked up; try again shortly.",
  }),
  /** `planOf` named a plan `plans` lacks (500). */
  unknownPlan: JSON.stringify({
    error: 'internal_error',
    message: 'The server could not decide this request.',
  }),
} as const

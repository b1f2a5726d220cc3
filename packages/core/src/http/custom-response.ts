import { describeValue } from '../errors.js'
import { RateLimitRequestError } from './errors.js'
import type { LimitedResponse } from './options/types.js'
import type { AnsweredRequest } from './outcome.js'

// A custom `handler`'s response, checked before it is sent: whatever the app returns, the server never sends
// a header Node would throw on, and never crashes.

/** An HTTP field name: a token (RFC 9110 §5.6.2). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
/** A field value a Node server can send: tabs and visible Latin-1, no CR, LF or NUL (RFC 9110 §5.5). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/

function checkField(name: string, value: unknown): string | undefined {
  if (!TOKEN.test(name)) return `the header name ${describeValue(name)} is not a token`
  if (typeof value !== 'string' && typeof value !== 'number') {
    return `the header ${name} is ${describeValue(value)}, not a string`
  }
  if (!FIELD_VALUE.test(String(value))) {
    return `the header ${name} holds CR, LF, NUL or a character above U+00FF`
  }
  return undefined
}

/** What is wrong with a custom handler's response, or `undefined` when it can be sent. */
function responseProblem(response: LimitedResponse): string | undefined {
  if (typeof response !== 'object' || response === null) return `it returned ${describeValue(response)}`
  const { status, headers, contentType } = response
  if (status !== undefined && !(Number.isInteger(status) && status >= 200 && status <= 599)) {
    return `the status ${describeValue(status)} is not a whole number from 200 to 599`
  }
  if (contentType !== undefined) {
    const problem = checkField('content-type', contentType)
    if (problem) return problem
  }
  if (headers !== undefined) {
    if (typeof headers !== 'object' || headers === null) return `headers is ${describeValue(headers)}`
    for (const name of Object.keys(headers)) {
      const problem = checkField(name, headers[name])
      if (problem) return problem
    }
  }
  return undefined
}

/**
 * Apply a custom handler's response to a refusal, or say why it cannot be sent. The body is a string as
 * given, else JSON (a body JSON cannot hold, such as a bigint, is a problem too).
 */
export function applyCustomResponse(
  outcome: AnsweredRequest,
  response: LimitedResponse | undefined,
): RateLimitRequestError | undefined {
  if (response === undefined) return undefined
  const problem = responseProblem(response)
  let body: string | undefined
  if (problem === undefined && response.body !== undefined) {
    try {
      body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body)
    } catch (error) {
      return invalidResponse(
        `its body cannot be sent as JSON (${error instanceof Error ? error.message : error})`,
      )
    }
  }
  if (problem !== undefined) return invalidResponse(problem)
  if (response.status !== undefined) outcome.status = response.status
  if (response.headers) {
    for (const name of Object.keys(response.headers)) {
      outcome.headers[name.toLowerCase()] = String(response.headers[name])
    }
  }
  if (response.contentType !== undefined) outcome.contentType = response.contentType
  if (body !== undefined) outcome.body = body
  return undefined
}

const invalidResponse = (problem: string) =>
  new RateLimitRequestError(
    'ERR_FLOODGATE_INVALID_RESPONSE',
    `The custom \`handler\`'s response cannot be sent: ${problem}. The answer was 500.`,
    { option: 'handler' },
  )

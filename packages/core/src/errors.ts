/** Stable error codes; match on these, never on the message. */
export type RateLimitErrorCode =
  | 'ERR_FLOODGATE_INVALID_OPTION'
  | 'ERR_FLOODGATE_INVALID_DURATION'
  | 'ERR_FLOODGATE_UNKNOWN_OPTION'
  | 'ERR_FLOODGATE_INVALID_COST'
  | 'ERR_FLOODGATE_INVALID_KEY'
  | 'ERR_FLOODGATE_TIER_NOT_TIGHTER'
  | 'ERR_FLOODGATE_STORE_NOT_SYNCHRONOUS'

/** Describe a value for an error message: `-5 (number)`, `'1 parsec' (string)`. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 60 ? `${value.slice(0, 57)}...` : value}' (string)`
  if (typeof value === 'function') return 'a function'
  if (value === null) return 'null'
  if (Array.isArray(value)) return `an array of ${value.length}`
  if (typeof value === 'object') return 'an object'
  return `${String(value)} (${typeof value})`
}

/**
 * Thrown when a limiter, store or middleware is created with an invalid option, never on a request.
 * The message names the option, the value given and what is allowed.
 */
export class RateLimitConfigError extends Error {
  override readonly name = 'RateLimitConfigError'
  readonly code: RateLimitErrorCode
  readonly option: string
  readonly value: unknown

  /** `hint`, when given, is a sentence after the message: what was probably meant. */
  constructor(code: RateLimitErrorCode, option: string, value: unknown, expected: string, hint?: string) {
    super(`Expected \`${option}\` to be ${expected}, got ${describeValue(value)}${hint ? `. ${hint}` : ''}`)
    this.code = code
    this.option = option
    this.value = value
  }
}

/** Thrown by `consume` when a request's cost is not a positive finite number. */
export class RateLimitCostError extends RangeError {
  override readonly name = 'RateLimitCostError'
  readonly code = 'ERR_FLOODGATE_INVALID_COST' as const
  constructor(value: unknown) {
    super(`Expected \`cost\` to be a finite number > 0, got ${describeValue(value)}`)
  }
}

/** Stable error codes; match on these, never on the message. */
export type ClientConfigErrorCode = 'ERR_FLOODGATE_INVALID_OPTION' | 'ERR_FLOODGATE_UNKNOWN_OPTION'

/** How a value reads in an error message: `-5 (number)`, `'soon' (string)`, `an array of 3`. */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `'${value.length > 60 ? `${value.slice(0, 57)}...` : value}' (string)`
    case 'function':
      return 'a function'
    case 'object':
      if (value === null) return 'null'
      return Array.isArray(value) ? `an array of ${value.length}` : 'an object'
    default:
      return `${String(value)} (${typeof value})`
  }
}

/**
 * Thrown when a client, an interceptor or a retry budget is created with an invalid option, never on a
 * request. The message names the option, the value given and what is allowed:
 * "Expected `maxAttempts` to be a whole number >= 1, got -5 (number)".
 */
export class ClientConfigError extends Error {
  override readonly name = 'ClientConfigError'
  readonly code: ClientConfigErrorCode
  readonly option: string
  readonly value: unknown

  constructor(code: ClientConfigErrorCode, option: string, value: unknown, expected: string) {
    super(`Expected \`${option}\` to be ${expected}, got ${describeValue(value)}`)
    this.code = code
    this.option = option
    this.value = value
  }
}

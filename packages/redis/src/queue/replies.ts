/** A script reply field as text (binary clients answer Buffers). */
export const text = (value: unknown): string =>
  Buffer.isBuffer(value) ? value.toString('utf8') : String(value)

/** A script reply field as a number. */
export const num = (value: unknown): number => Number(text(value))

/** A script reply as an array (nil, a Lua false, is `undefined`). */
export const list = (value: unknown): unknown[] | undefined => (Array.isArray(value) ? value : undefined)

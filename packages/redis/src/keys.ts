import { createHash } from 'node:crypto'

/** A caller's key longer than this (after escaping) is replaced by its hash. */
export const MAX_TAG_LENGTH = 200

const ESCAPES: Record<string, string> = { '%': '%25', '{': '%7B', '}': '%7D' }

/**
 * The hash tag for a caller's key: the key with `%`, `{` and `}` percent-encoded (injective, and the result
 * holds no brace, so it can neither pick its own Cluster slot nor leave its tag), or, when that is longer
 * than {@link MAX_TAG_LENGTH}, `%H` and the base64url SHA-256 of the key. Escaping never produces `%H`, so a
 * hashed key cannot collide with a short one.
 */
export function keyTag(key: string): string {
  const escaped = /[%{}]/.test(key) ? key.replace(/[%{}]/g, (c) => ESCAPES[c]!) : key
  if (escaped.length <= MAX_TAG_LENGTH) return escaped
  return `%H${createHash('sha256').update(key).digest('base64url')}`
}

/**
 * The Redis key of one key's state for one algorithm: `prefix:{tag}:algorithm`, where the suffix is the
 * algorithm's id (its kind and parameters, as core's `algorithm.id`). The hash tag keeps all of one key's
 * state on one Cluster slot; the suffix keeps algorithms apart, and lets equal algorithms share state.
 *
 * @example redisKey('rl', 'user:1', 'gcra:100,1000,10') // 'rl:{user:1}:gcra:100,1000,10'
 */
export function redisKey(prefix: string, key: string, algorithmId: string): string {
  return `${prefix}:{${keyTag(key)}}:${algorithmId}`
}

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256)
  for (let i = 0; i < 256; i++) {
    let crc = i << 8
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? (crc << 1) ^ 0x1021 : crc << 1
    table[i] = crc & 0xffff
  }
  return table
})()

/** CRC16-XMODEM, the checksum Redis Cluster hashes keys with. */
function crc16(bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!
  return crc
}

/** The Redis Cluster slot of a key (0..16383), hash tags included. */
export function keySlot(key: string): number {
  const bytes = Buffer.from(key)
  const open = bytes.indexOf(0x7b)
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1)
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) & 0x3fff
  }
  return crc16(bytes) & 0x3fff
}

import { partitionOf } from '@floodgate/core/internal'

/**
 * The Redis key of one key's state for one algorithm: `prefix:key:algorithm`, the suffix being the
 * algorithm's id (its kind and parameters), so algorithms stay apart and equal ones share state.
 *
 * Keys from `@floodgate/core` (the limiter, the HTTP handler) already carry their caller in braces,
 * `scope{caller}rest`, encoded so a client can neither pick a Cluster slot nor leave its tag: they are used as
 * they are, and Redis Cluster hashes the caller alone, so one caller's policies share a slot. Any other key
 * (a store used directly) is encoded and bounded as a whole and put in braces.
 *
 * @example redisKey('rl', 'api:ip|{ip:1.2.3.4}', 'gcra:100,1000,10') // 'rl:api:ip|{ip:1.2.3.4}:gcra:100,1000,10'
 * @example redisKey('rl', 'user:1', 'fw:5,1000') // 'rl:{user:1}:fw:5,1000'
 */
export function redisKey(prefix: string, key: string, algorithmId: string): string {
  return `${prefix}:${tagged(key) ? key : `{${partitionOf(key)}}`}:${algorithmId}`
}

/** Whether a key carries a non-empty hash tag and is well-formed UTF-16 (so UTF-8 keeps it as it is). */
function tagged(key: string): boolean {
  const open = key.indexOf('{')
  if (open === -1) return false
  const close = key.indexOf('}', open + 1)
  return close > open + 1 && (key as string & { isWellFormed(): boolean }).isWellFormed()
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

import { ipv4Number, type ParsedIp, parseIp } from './ip.js'

interface V4Range {
  readonly version: 4
  readonly base: number
  readonly mask: number
}
interface V6Range {
  readonly version: 6
  readonly groups: number[]
  readonly bits: number
}
type Range = V4Range | V6Range

/**
 * Parse one allow-list entry: an address or a CIDR range (`'10.0.0.1'`, `'10.0.0.0/8'`, `'2001:db8::/32'`)
 * whose address is written as {@link parseIp} accepts it and whose prefix is 0 to 32 (IPv4) or 0 to 128
 * (IPv6) in one to three digits; `undefined` when invalid.
 *
 * An IPv4 range matches IPv4 clients, IPv4-mapped and IPv4-compatible ones included; an IPv6 range matches
 * the other IPv6 clients only (as Express's and Fastify's trust-proxy ranges do). A range written on an
 * IPv4-mapped or IPv4-compatible address (`'::ffff:10.0.0.0/104'`) is the IPv4 range of 96 bits fewer
 * (`10.0.0.0/8`); with fewer than 96 bits it would span IPv6 space as well, and is refused.
 *
 * @example
 * parseRange('::ffff:10.0.0.0/104') // the same range as '10.0.0.0/8'
 * parseRange('10.0.0/8')            // undefined: three parts
 */
export function parseRange(entry: string): Range | undefined {
  if (typeof entry !== 'string') return undefined
  const slash = entry.indexOf('/')
  const address = parseIp(slash === -1 ? entry : entry.slice(0, slash))
  if (!address) return undefined
  const max = address.version === 4 ? 32 : 128
  let bits = max
  if (slash !== -1) {
    const text = entry.slice(slash + 1)
    if (!/^\d{1,3}$/.test(text)) return undefined
    bits = Number(text)
    // An IPv4-mapped IPv6 range (`::ffff:10.0.0.0/104`) is an IPv4 range of 32 bits fewer.
    if (address.version === 4 && entry.indexOf(':') !== -1) bits -= 96
    if (bits < 0 || bits > max) return undefined
  }
  if (address.version === 4) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0
    return { version: 4, base: (ipv4Number(address.text) & mask) >>> 0, mask }
  }
  return { version: 6, groups: address.groups, bits }
}

function inV6(range: V6Range, groups: number[]): boolean {
  let bits = range.bits
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff
    if ((range.groups[i]! & mask) !== (groups[i]! & mask)) return false
  }
  return true
}

/** A compiled allow list: `has(ip)` tells whether an address is in one of its ranges. */
export interface AllowList {
  has(ip: ParsedIp): boolean
}

/** Compile allow-list entries (validated beforehand with {@link parseRange}). */
export function compileAllowList(entries: readonly string[]): AllowList {
  const ranges = entries.map((entry) => parseRange(entry)!)
  const v4 = ranges.filter((r): r is V4Range => r.version === 4)
  const v6 = ranges.filter((r): r is V6Range => r.version === 6)
  return {
    has(ip) {
      if (ip.version === 4) {
        if (v4.length === 0) return false
        const n = ipv4Number(ip.text)
        for (const r of v4) if ((n & r.mask) >>> 0 === r.base) return true
        return false
      }
      for (const r of v6) if (inV6(r, ip.groups)) return true
      return false
    },
  }
}

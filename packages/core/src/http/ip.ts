import { isIPv4, isIPv6 } from 'node:net'

/** A parsed client address: IPv4 (IPv4-mapped IPv6 included) or IPv6 as eight 16-bit groups. */
export type ParsedIp =
  | { readonly version: 4; readonly text: string }
  | { readonly version: 6; readonly groups: number[] }

const BRACKET = 91

/** Parse `'1.2.3.4'`, `'::ffff:1.2.3.4'` (becomes IPv4), `'fe80::1%eth0'` (zone dropped), `'[::1]'`; `undefined` when not an address. */
export function parseIp(raw: string | undefined): ParsedIp | undefined {
  if (!raw) return undefined
  if (raw.indexOf(':') === -1) return isIPv4(raw) ? { version: 4, text: raw } : undefined
  let ip = raw
  if (ip.charCodeAt(0) === BRACKET && ip.charCodeAt(ip.length - 1) === 93) ip = ip.slice(1, -1)
  const zone = ip.indexOf('%')
  if (zone !== -1) ip = ip.slice(0, zone)
  if (!isIPv6(ip)) return undefined
  const groups = ipv6Groups(ip)
  if (
    groups[0] === 0 &&
    groups[1] === 0 &&
    groups[2] === 0 &&
    groups[3] === 0 &&
    groups[4] === 0 &&
    groups[5] === 0xffff
  ) {
    const hi = groups[6]!
    const lo = groups[7]!
    return { version: 4, text: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}` }
  }
  return { version: 6, groups }
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, an IPv4 tail split in two). */
export function ipv6Groups(ip: string): number[] {
  const groups = [0, 0, 0, 0, 0, 0, 0, 0]
  const gap = ip.indexOf('::')
  const head = gap === -1 ? ip : ip.slice(0, gap)
  const tail = gap === -1 ? '' : ip.slice(gap + 2)
  const front = head === '' ? [] : toGroups(head)
  const back = tail === '' ? [] : toGroups(tail)
  for (let i = 0; i < front.length; i++) groups[i] = front[i]!
  for (let i = 0; i < back.length; i++) groups[8 - back.length + i] = back[i]!
  return groups
}

function toGroups(part: string): number[] {
  const out: number[] = []
  for (const piece of part.split(':')) {
    if (piece.indexOf('.') !== -1) {
      const [a, b, c, d] = piece.split('.').map(Number) as [number, number, number, number]
      out.push((a << 8) | b, (c << 8) | d)
    } else {
      out.push(Number.parseInt(piece, 16))
    }
  }
  return out
}

/** An IPv4 address as an unsigned 32-bit number. */
export function ipv4Number(text: string): number {
  let n = 0
  let part = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 46) {
      n = n * 256 + part
      part = 0
    } else {
      part = part * 10 + (c - 48)
    }
  }
  return n * 256 + part
}

/**
 * The part of an address a rate limit is keyed on: an IPv4 address itself; an IPv6 address's first
 * `ipv6Subnet` bits (`2001:db8:1:2::/64`), so that a client rotating through its /64 stays in one bucket.
 */
export function ipKey(ip: ParsedIp, ipv6Subnet: number): string {
  if (ip.version === 4) return ip.text
  const { groups } = ip
  if (ipv6Subnet >= 128) return groups.map((g) => g.toString(16)).join(':')
  const whole = ipv6Subnet >> 4
  const rest = ipv6Subnet & 15
  const kept: string[] = []
  for (let i = 0; i < whole; i++) kept.push(groups[i]!.toString(16))
  if (rest > 0) kept.push((groups[whole]! & (0xffff << (16 - rest)) & 0xffff).toString(16))
  return `${kept.join(':')}::/${ipv6Subnet}`
}

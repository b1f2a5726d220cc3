// Client addresses: a strict parser (no platform API, so it runs in a browser too) and the rate-limit key.

/** A parsed client address: IPv4 (IPv4-mapped and IPv4-compatible IPv6 included) or IPv6 as eight 16-bit groups. */
export type ParsedIp =
  | { readonly version: 4; readonly text: string }
  | { readonly version: 6; readonly groups: number[] }

const DOT = 46
const COLON = 58
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93

/**
 * Parse a client address as the framework reports it. `undefined` when it is not one address: a request
 * without an address is refused, never counted under a shared key.
 *
 * Accepted, and nothing else:
 * - IPv4 as four decimal parts without leading zeros (`'203.0.113.7'`). `'010.1.1.1'`, `'0x7f.1'` and
 *   `'127.1'` are refused: some parsers read them as octal, hex or "classful" numbers and others do not,
 *   so a client must never be able to pick the spelling that lands it in a fresh bucket.
 * - IPv6 in any RFC 4291 text form: one to four hex digits per group in either case, at most one `::`
 *   standing for at least one zero group, an IPv4 tail in the last 32 bits (four decimal parts, as above).
 *   Optionally in brackets (`'[2001:db8::1]'`) and with a zone id of RFC 6874 unreserved characters
 *   (`'fe80::1%eth0'`), which is dropped: the zone is not part of the address, and a key that kept it
 *   would let a sender mint buckets by renaming the zone.
 *
 * Which addresses are IPv4 is decided on the 128-bit value, never on the spelling, so every way to write
 * one host gives one key:
 * - IPv4-mapped (`::ffff:0:0/96`, `'::ffff:203.0.113.7'` or `'::ffff:cb00:7107'`) is the IPv4 address in
 *   its last 32 bits: that is how a dual-stack socket shows an IPv4 client.
 * - IPv4-compatible (`::/96` other than `::` and `::1`, `'::203.0.113.7'`, deprecated by RFC 4291) is also
 *   the IPv4 address in its last 32 bits. It named "the IPv6 side of IPv4 host a.b.c.d" (automatic
 *   tunnelling), so a.b.c.d is what a real network means by it; ipaddr.js, with which Express and Fastify
 *   decide which proxy to trust, reads `'::a.b.c.d'` so too; and the other reading, an IPv6 address keyed by its /64, would
 *   put every such client in one bucket with `::1` (loopback) and each other. `::` and `::1` (which are
 *   `'::0.0.0.0'` and `'::0.0.0.1'`) stay IPv6: they are the unspecified and the loopback address.
 *
 * @example
 * parseIp('::ffff:203.0.113.7') // { version: 4, text: '203.0.113.7' }
 * parseIp('[2001:DB8::1%eth0]') // { version: 6, groups: [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1] }
 * parseIp('01.2.3.4')           // undefined
 */
export function parseIp(raw: string | undefined): ParsedIp | undefined {
  if (typeof raw !== 'string' || raw.length === 0) return undefined
  // The common case first: a plain IPv4 address is returned as given (it is already canonical).
  if (isDottedQuad(raw, 0, raw.length)) return { version: 4, text: raw }
  const groups = ipv6Groups(raw)
  return groups && fromGroups(groups)
}

function fromGroups(groups: number[]): ParsedIp {
  if (groups[0] === 0 && groups[1] === 0 && groups[2] === 0 && groups[3] === 0 && groups[4] === 0) {
    const hi = groups[6]!
    const lo = groups[7]!
    const marker = groups[5]
    if (marker === 0xffff || (marker === 0 && (hi !== 0 || lo > 1))) {
      return { version: 4, text: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}` }
    }
  }
  return { version: 6, groups }
}

/**
 * The eight 16-bit groups of an IPv6 address written in any form {@link parseIp} accepts (`::` expanded,
 * an IPv4 tail split in two, brackets and zone id dropped); `undefined` when it is not one.
 */
export function ipv6Groups(text: string): number[] | undefined {
  let start = 0
  let end = text.length
  if (text.charCodeAt(0) === OPEN_BRACKET) {
    if (text.charCodeAt(end - 1) !== CLOSE_BRACKET) return undefined
    start = 1
    end -= 1
  }
  const zone = text.indexOf('%', start)
  if (zone !== -1) {
    if (!isZoneId(text, zone + 1, end)) return undefined
    end = zone
  }
  const groups = [0, 0, 0, 0, 0, 0, 0, 0]
  let count = 0
  let gap = -1
  let i = start
  if (text.charCodeAt(i) === COLON && i + 1 < end) {
    if (text.charCodeAt(i + 1) !== COLON) return undefined
    gap = 0
    i += 2
    if (i === end) return groups
  }
  for (;;) {
    let value = 0
    let j = i
    for (; j < end; j++) {
      const digit = hexDigit(text.charCodeAt(j))
      if (digit < 0) break
      if (j - i === 4) return undefined
      value = value * 16 + digit
    }
    if (j === i) return undefined
    if (j < end && text.charCodeAt(j) === DOT) {
      if (count > 6 || !isDottedQuad(text, i, end)) return undefined
      const v4 = dottedQuadValue(text, i, end)
      groups[count++] = v4 >>> 16
      groups[count++] = v4 & 0xffff
      break
    }
    if (count === 8) return undefined
    groups[count++] = value
    if (j === end) break
    if (text.charCodeAt(j) !== COLON) return undefined
    j++
    if (j < end && text.charCodeAt(j) === COLON) {
      if (gap !== -1) return undefined
      gap = count
      j++
      if (j === end) break
    }
    i = j
  }
  if (gap === -1) return count === 8 ? groups : undefined
  if (count === 8) return undefined
  const shift = 8 - count
  for (let k = count - 1; k >= gap; k--) {
    groups[k + shift] = groups[k]!
    groups[k] = 0
  }
  return groups
}

/** Whether `text[start, end)` is four decimal parts of 0 to 255 without leading zeros. */
function isDottedQuad(text: string, start: number, end: number): boolean {
  let i = partEnd(text, start, end)
  for (let dots = 0; dots < 3; dots++) {
    if (i < 0 || i === end || text.charCodeAt(i) !== DOT) return false
    i = partEnd(text, i + 1, end)
  }
  return i === end
}

/** Where one decimal part of 0 to 255 without leading zeros that starts at `text[i]` ends, or -1. */
function partEnd(text: string, i: number, end: number): number {
  if (i >= end) return -1
  const a = text.charCodeAt(i) - 48
  if (a < 0 || a > 9) return -1
  i++
  if (a === 0 || i === end) return i
  const b = text.charCodeAt(i) - 48
  if (b < 0 || b > 9) return i
  i++
  if (i === end) return i
  const c = text.charCodeAt(i) - 48
  if (c < 0 || c > 9) return i
  return a * 100 + b * 10 + c > 255 ? -1 : i + 1
}

/** The value of the dotted quad in `text[start, end)`, checked beforehand with {@link isDottedQuad}. */
function dottedQuadValue(text: string, start: number, end: number): number {
  let value = 0
  let part = 0
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i)
    if (c === DOT) {
      value = value * 256 + part
      part = 0
    } else {
      part = part * 10 + (c - 48)
    }
  }
  return value * 256 + part
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48
  const lower = c | 32
  return lower >= 97 && lower <= 102 ? lower - 87 : -1
}

/** One or more RFC 6874 unreserved characters: letters, digits, `-`, `.`, `_`, `~`. */
function isZoneId(text: string, start: number, end: number): boolean {
  if (start >= end) return false
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i)
    const lower = c | 32
    if ((c < 48 || c > 57) && (lower < 97 || lower > 122) && c !== 45 && c !== DOT && c !== 95 && c !== 126) {
      return false
    }
  }
  return true
}

/** An IPv4 address (four decimal parts, as {@link parseIp} returns it) as an unsigned 32-bit number. */
export function ipv4Number(text: string): number {
  return dottedQuadValue(text, 0, text.length)
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

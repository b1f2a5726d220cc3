// The reading of a client address that Floodgate must agree with, computed by ipaddr.js (the parser behind
// Express's and Fastify's trust-proxy code) and node:net, with Floodgate's deliberate departures applied on
// top. Each departure is named here (D1–D8) and explained in parseIp's and parseRange's TSDoc.
//
// D1 IPv4 is four decimal parts without leading zeros: ipaddr.IPv4.isValidFourPartDecimal, never
//    ipaddr.parse, which also reads '0x7f.1', '010.1.1.1' (octal: 8.1.1.1) and '127.1'.
// D2 The same for an IPv4 tail in IPv6: ipaddr.IPv6 takes '::ffff:01.2.3.4' and '::ffff:0x1.2.3.4'.
// D3 Brackets around an IPv6 address ('[::1]') are accepted and dropped; neither library takes them.
// D4 A zone id is one or more RFC 6874 unreserved characters (letters, digits, '-', '.', '_', '~') and is
//    dropped; ipaddr.js takes letters and digits only, node:net also '-', '.' and ':'. The libraries are
//    asked about the address with its zone spelled 'z'.
// D5 ipaddr.js rewrites '::a.b.c.d' (that spelling only) into '::ffff:a.b.c.d'; the address as written
//    is 0:0:0:0:0:0:ab:cd, and that is what ipv6Groups returns.
// D6 IPv4-compatible addresses (::/96 other than :: and ::1) are the IPv4 address in their last 32 bits,
//    whatever the spelling; ipaddr.js only turns the '::a.b.c.d' spelling into IPv4 (and that one even for
//    '::0.0.0.1', which is ::1).
// D7 A range's prefix length is one to three digits; ipaddr.js takes any number ('/0032').
// D8 A range written on an IPv4-mapped or -compatible address is the IPv4 range of 96 bits fewer, and is
//    refused under 96 bits. An IPv4 range matches IPv4 clients only (mapped and compatible included), an
//    IPv6 range the other IPv6 clients only: ipaddr.js's match refuses to compare across families, and
//    proxy-addr only lets mapped ranges of 96 bits or more match IPv4 clients (D8 made them IPv4 ranges).
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

export type Reading =
  | { readonly kind: 'rejected' }
  | {
      readonly kind: 'ipv4'
      readonly octets: number[]
      readonly from: 'ipv4' | 'mapped' | 'compatible'
      /** The eight groups as written, when the address was written as IPv6. */
      readonly groups?: number[]
    }
  | { readonly kind: 'ipv6'; readonly groups: number[] }

const REJECTED: Reading = { kind: 'rejected' }
const ZONE = /^[0-9A-Za-z._~-]+$/
const FOUR_PARTS = (text: string) => ipaddr.IPv4.isValidFourPartDecimal(text)

/** The text the libraries are asked about (D3 and D4 applied); `undefined` when the framing is refused. */
export function libraryText(input: string): string | undefined {
  let text = input
  let ipv6Only = false
  if (text.length >= 2 && text.startsWith('[') && text.endsWith(']')) {
    text = text.slice(1, -1)
    ipv6Only = true
  }
  const percent = text.indexOf('%')
  if (percent !== -1) {
    if (!ZONE.test(text.slice(percent + 1))) return undefined
    text = `${text.slice(0, percent)}%z`
    ipv6Only = true
  }
  return ipv6Only && !text.includes(':') ? undefined : text
}

/** What node:net says: whether it takes the address (after D3 and D4). */
export function nodeAccepts(input: string): boolean {
  const text = libraryText(input)
  return text !== undefined && isIP(text) !== 0
}

/** How Floodgate must read `input`: ipaddr.js with D1–D6. */
export function reading(input: string): Reading {
  const text = libraryText(input)
  if (text === undefined) return REJECTED
  if (!text.includes(':')) {
    return FOUR_PARTS(text)
      ? { kind: 'ipv4', octets: ipaddr.IPv4.parse(text).octets, from: 'ipv4' }
      : REJECTED
  }
  if (!ipaddr.IPv6.isValid(text)) return REJECTED
  const address = text.replace(/%.*$/, '')
  const tail = address.slice(address.lastIndexOf(':') + 1)
  if (tail.includes('.') && !FOUR_PARTS(tail)) return REJECTED
  const groups = ipaddr.IPv6.parse(text).parts.slice()
  if (/^::[^:]*\./.test(address)) groups[5] = 0
  const v6 = new ipaddr.IPv6(groups)
  if (v6.isIPv4MappedAddress())
    return { kind: 'ipv4', octets: v6.toIPv4Address().octets, from: 'mapped', groups }
  const [hi, lo] = [groups[6]!, groups[7]!]
  if (groups.slice(0, 6).every((g) => g === 0) && (hi !== 0 || lo > 1)) {
    return { kind: 'ipv4', octets: [hi >> 8, hi & 255, lo >> 8, lo & 255], from: 'compatible', groups }
  }
  return { kind: 'ipv6', groups }
}

export type ReferenceRange = readonly [ipaddr.IPv4 | ipaddr.IPv6, number]

/** An allow-list entry as ipaddr.parseCIDR reads it, with D1–D8; `undefined` when refused. */
export function referenceRange(entry: string): ReferenceRange | undefined {
  const slash = entry.indexOf('/')
  const written = slash === -1 ? entry : entry.slice(0, slash)
  const address = reading(written)
  if (address.kind === 'rejected') return undefined
  const prefix = slash === -1 ? (written.includes(':') ? '128' : '32') : entry.slice(slash + 1)
  if (!/^\d{1,3}$/.test(prefix)) return undefined
  // The address as Floodgate reads it (D1–D6), in the one spelling both parsers agree on.
  const text =
    address.kind === 'ipv6' || address.groups
      ? (address.groups ?? []).map((g) => g.toString(16)).join(':')
      : address.octets.join('.')
  let cidr: [ipaddr.IPv4 | ipaddr.IPv6, number]
  try {
    cidr = ipaddr.parseCIDR(`${text}/${prefix}`)
  } catch {
    return undefined
  }
  if (address.kind === 'ipv4' && cidr[0].kind() === 'ipv6') {
    return cidr[1] < 96 ? undefined : [new ipaddr.IPv4(address.octets), cidr[1] - 96]
  }
  return cidr
}

/** Whether a client (read as above) is in the range, by ipaddr.js's match; never across families (D8). */
export function referenceMatch(range: ReferenceRange, client: Reading): boolean {
  if (client.kind === 'rejected') return false
  const [network, bits] = range
  if (client.kind === 'ipv4') {
    return network.kind() === 'ipv4' && new ipaddr.IPv4(client.octets).match(network as ipaddr.IPv4, bits)
  }
  return network.kind() === 'ipv6' && new ipaddr.IPv6(client.groups).match(network as ipaddr.IPv6, bits)
}

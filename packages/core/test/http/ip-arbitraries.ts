// fast-check generators of client-address text: IPv4 and IPv6 in every spelling, near misses and garbage.
import fc from 'fast-check'

const hex16 = fc.integer({ min: 0, max: 0xffff })
/** A 16-bit group, zero often so that `::` lands at every position. */
const group = fc.oneof(
  { weight: 4, arbitrary: fc.constant(0) },
  { weight: 4, arbitrary: hex16 },
  { weight: 1, arbitrary: fc.constantFrom(1, 0xff, 0x100, 0xffff) },
)

/** Eight groups: any, or in the ranges where parsing decides something (mapped, compatible, ::, ::1). */
export const ipv6Value = fc.oneof(
  { weight: 4, arbitrary: fc.array(group, { minLength: 8, maxLength: 8 }) },
  { weight: 1, arbitrary: fc.tuple(hex16, hex16).map(([a, b]) => [0, 0, 0, 0, 0, 0xffff, a, b]) },
  { weight: 1, arbitrary: fc.tuple(group, group).map(([a, b]) => [0, 0, 0, 0, 0, 0, a, b]) },
  { weight: 1, arbitrary: fc.tuple(hex16, hex16).map(([a, b]) => [0, 0, 0, 0, 0xffff, 0, a, b]) },
  {
    weight: 1,
    arbitrary: fc.array(group, { minLength: 4, maxLength: 4 }).map((g) => [0xfe80, 0, 0, 0, ...g]),
  },
)

export const ipv4Value = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 })

/** How to write an IPv6 address: which zero run `::` replaces, padding, case, IPv4 tail, zone, brackets. */
export const ipv6Spelling = fc.record({
  compress: fc.integer({ min: -1, max: 35 }),
  pad: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }),
  upper: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
  ipv4Tail: fc.boolean(),
  tailPad: fc.array(fc.oneof({ weight: 15, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 2 })), {
    minLength: 4,
    maxLength: 4,
  }),
  zone: fc.oneof(
    { weight: 3, arbitrary: fc.constant(null) },
    fc.oneof(
      fc.constantFrom('eth0', 'en0', '1', 'lo', 'eth0.100', 'br-1a2b', 'wlan_0', 'x~y'),
      fc.stringMatching(/^[0-9A-Za-z._~-]{1,8}$/),
      fc.constantFrom('', 'eth 0', 'a:b', 'a%b', 'é', '25eth0'),
    ),
  ),
  brackets: fc.oneof({ weight: 6, arbitrary: fc.constant(false) }, fc.constant(true)),
})
export type Ipv6Spelling = typeof ipv6Spelling extends fc.Arbitrary<infer S> ? S : never

const dotted = (octets: number[], pad: number[] = []) =>
  octets.map((o, i) => '0'.repeat(pad[i] ?? 0) + o).join('.')

/** Write eight groups as the spelling says: every run of zero groups is a candidate for `::`. */
export function spellIpv6(groups: number[], s: Ipv6Spelling): string {
  const count = s.ipv4Tail ? 6 : 8
  const tokens = groups.slice(0, count).map((g, i) => {
    const digits = g.toString(16)
    const padded = '0'.repeat(Math.min(s.pad[i]!, 4 - digits.length)) + digits
    return s.upper[i] ? padded.toUpperCase() : padded
  })
  if (s.ipv4Tail) {
    const [hi, lo] = [groups[6]!, groups[7]!]
    tokens.push(dotted([hi >> 8, hi & 255, lo >> 8, lo & 255], s.tailPad))
  }
  const runs: [number, number][] = []
  for (let a = 0; a < count; a++) for (let b = a; b < count && groups[b] === 0; b++) runs.push([a, b - a + 1])
  let text = tokens.join(':')
  if (s.compress >= 0 && runs.length > 0) {
    const [start, length] = runs[s.compress % runs.length]!
    text = `${tokens.slice(0, start).join(':')}::${tokens.slice(start + length).join(':')}`
  }
  if (s.zone !== null) text = `${text}%${s.zone}`
  return s.brackets ? `[${text}]` : text
}

export const ipv6Text = fc.tuple(ipv6Value, ipv6Spelling).map(([g, s]) => spellIpv6(g, s))

/** IPv4 text: mostly four plain parts; also leading zeros, parts above 255, three to six parts, hex. */
export const ipv4Text = fc.oneof(
  { weight: 4, arbitrary: ipv4Value.map((o) => dotted(o)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), fc.integer({ min: 256, max: 1000 })), {
          minLength: 1,
          maxLength: 6,
        }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 6, maxLength: 6 }),
      )
      .map(([parts, pad]) => dotted(parts, pad)),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom('0x7f.1', '0x7f.0.0.1', '127.1', '0177.0.0.1', '4294967295', '1.2.3.0x4'),
  },
)

/** Characters that near-miss addresses are made of, and a few that only look like them. */
const NOISE = [...'0123456789abcdefABCDEFxX:.%[]/ -_~zgG', '\u0660', '\uff11', '\u00a0', '\n', '\t']

/** A valid-looking address with one to three characters inserted, deleted or replaced. */
export const nearMiss = fc
  .tuple(
    fc.oneof(ipv6Text, ipv4Text),
    fc.array(
      fc.record({
        at: fc.nat(),
        op: fc.constantFrom('insert', 'delete', 'replace'),
        char: fc.constantFrom(...NOISE),
      }),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
  )
  .map(([text, edits]) => {
    let out = text
    for (const { at, op, char } of edits) {
      const i = at % (out.length + 1)
      out = out.slice(0, i) + (op === 'delete' ? '' : char) + out.slice(op === 'insert' ? i : i + 1)
    }
    return out
  })

export const garbage = fc.oneof(
  fc.string({ unit: fc.constantFrom(...NOISE), maxLength: 48 }),
  fc.string({ unit: 'binary', maxLength: 24 }),
)

/** Every kind of input the parser meets, the valid ones most often. */
export const addressText = fc.oneof(
  { weight: 4, arbitrary: ipv6Text },
  { weight: 2, arbitrary: ipv4Text },
  { weight: 3, arbitrary: nearMiss },
  { weight: 1, arbitrary: garbage },
)

/** An allow-list entry and a client near it: the client is the range's address with one bit flipped (or none), or any address. */
export const rangeAndClient = fc
  .record({
    v6: fc.boolean(),
    v6Value: ipv6Value,
    v4Value: ipv4Value,
    rangeSpelling: ipv6Spelling.map((s) => ({ ...s, zone: null })),
    clientSpelling: ipv6Spelling,
    clientAsIpv4: fc.boolean(),
    prefix: fc.oneof(fc.integer({ min: 0, max: 130 }), fc.constant(null)),
    flip: fc.option(fc.integer({ min: 0, max: 127 })),
    other: fc.oneof({ weight: 4, arbitrary: fc.constant(null) }, addressText),
  })
  .map((c) => {
    const bits = c.v6 ? 128 : 32
    const value = c.v6 ? c.v6Value : c.v4Value
    const written = c.v6 ? spellIpv6(value, c.rangeSpelling) : dotted(value)
    const prefix = c.prefix === null ? '' : `/${c.v6 ? c.prefix : c.prefix % 34}`
    const client = value.slice()
    if (c.flip !== null) {
      const bit = c.flip % bits
      const width = c.v6 ? 16 : 8
      client[Math.floor(bit / width)]! ^= 1 << (width - 1 - (bit % width))
    }
    const mapped = c.v6 && client.slice(0, 6).join() === '0,0,0,0,0,65535'
    const clientText =
      c.other ??
      (!c.v6
        ? c.clientAsIpv4
          ? dotted(client)
          : spellIpv6(
              [0, 0, 0, 0, 0, 0xffff, (client[0]! << 8) | client[1]!, (client[2]! << 8) | client[3]!],
              c.clientSpelling,
            )
        : mapped && c.clientAsIpv4
          ? dotted([client[6]! >> 8, client[6]! & 255, client[7]! >> 8, client[7]! & 255])
          : spellIpv6(client, c.clientSpelling))
    return { entry: written + prefix, client: clientText }
  })

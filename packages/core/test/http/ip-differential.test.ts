// Differential test: Floodgate's hand-written address parser and allow-list matcher against ipaddr.js (what
// Express's and Fastify's trust-proxy code parses with) and node:net, over random addresses in every
// spelling, near misses, garbage and edge cases. Where Floodgate departs from ipaddr.js it does so on
// purpose: the departures D1–D8 are listed in ip-reference.ts.
import fc from 'fast-check'
import ipaddr from 'ipaddr.js'
import { describe, expect, it } from 'vitest'
import { compileAllowList, parseRange } from '../../src/http/allow-list.js'
import { ipv6Groups, parseIp } from '../../src/http/ip.js'
import { addressText, rangeAndClient } from './ip-arbitraries.js'
import { nodeAccepts, type Reading, reading, referenceMatch, referenceRange } from './ip-reference.js'

/** Check one input against the reference; returns the reference's reading. */
function agree(input: string): Reading {
  const expected = reading(input)
  const parsed = parseIp(input)
  const context = JSON.stringify(input)
  expect(parsed !== undefined, `accepts ${context}`).toBe(expected.kind !== 'rejected')
  expect(nodeAccepts(input), `node:net on ${context}`).toBe(expected.kind !== 'rejected')
  const groups = expected.kind === 'rejected' ? undefined : expected.groups
  expect(ipv6Groups(input), `groups of ${context}`).toEqual(groups)
  if (expected.kind === 'ipv4')
    expect(parsed, context).toEqual({ version: 4, text: expected.octets.join('.') })
  if (expected.kind === 'ipv6') expect(parsed, context).toEqual({ version: 6, groups: expected.groups })
  return expected
}

const EDGE_CASES = [
  '',
  ' ',
  ' 1.2.3.4',
  '1.2.3.4 ',
  '1.2.3',
  '1.2.3.',
  '.1.2.3',
  '1..2.3',
  '01.2.3.4',
  '1.2.3.00',
  '256.1.1.1',
  '1.2.3.4.5',
  '0x7f.1',
  '127.1',
  '4294967295',
  '::ffff:1.2.3.4.5',
  '::ffff:1.2.3',
  '::ffff:01.2.3.4',
  '::ffff:0x1.2.3.4',
  ':',
  '::',
  ':::',
  ':1',
  '1:',
  '1::2::3',
  '1:2:3:4:5:6:7:8:9',
  '1:2:3:4:5:6:7::8',
  '1:2:3:4::5:6:7:8',
  '1:2:3:4:5:6:7::',
  '::1:2:3:4:5:6:7',
  '1:2:3:4:5:6:1.2.3.4',
  '1:2:3:4:5:6:7:1.2.3.4',
  '::1:2:3:4:5:6:7:1.2.3.4',
  '1::3:4:5:6:7:1.2.3.4',
  '1:2:3:4:5::1.2.3.4',
  '::1.2.3.4:5',
  '12345::1',
  '::00000',
  '0000:0000:0000:0000:0000:0000:0000:0001',
  'g::1',
  '::1.2.3.4',
  '::0.0.0.0',
  '::0.0.0.1',
  '::0.0.0.2',
  '0::1.2.3.4',
  '::102:304',
  '::ffff:1.2.3.4',
  '::FFFF:cb00:7107',
  '::ffff:0:1.2.3.4',
  'fe80::1%eth0',
  'fe80::1%',
  'fe80::1%eth0%1',
  'fe80::1%eth 0',
  '1.2.3.4%eth0',
  '[::1]',
  '[::1',
  '::1]',
  '[1.2.3.4]',
  '[]',
  '[',
  '[[::1]]',
  '[fe80::1%eth0]',
  '[fe80::1]%eth0',
  '\u0661.2.3.4',
  '\uff11.2.3.4',
  '::\uff11',
  '1.2.3.4\n',
  '::1\u0000',
  'unknown',
  '1.2.3.4, 5.6.7.8',
  '1.2.3.4:80',
  '[::1]:80',
  '1'.repeat(5000),
  '1.'.repeat(2000),
  '1:'.repeat(2000),
  `${'0:'.repeat(2000)}1`,
  `::${'a'.repeat(5000)}`,
  `fe80::1%${'e'.repeat(5000)}`,
]

describe('parseIp against ipaddr.js and node:net', () => {
  it.each(
    EDGE_CASES.map((input) => [
      input.length > 40 ? `${input.slice(0, 30)}… (${input.length})` : input,
      input,
    ]),
  )('%j', (_, input) => {
    agree(input)
  })

  it('random addresses in every spelling, near misses and garbage', () => {
    const seen = { rejected: 0, ipv4: 0, mapped: 0, compatible: 0, ipv6: 0 }
    fc.assert(
      fc.property(addressText, (input) => {
        const expected = agree(input)
        seen[expected.kind === 'ipv4' ? (expected.from === 'ipv4' ? 'ipv4' : expected.from) : expected.kind]++
      }),
      { numRuns: 10_000 },
    )
    // The generators reach every reading, so the comparison above is never vacuous.
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(150)
  })

  it('very long input is refused, whatever it is made of', () => {
    for (const input of [
      '1'.repeat(1e6),
      '1:'.repeat(5e5),
      `::ffff:1.2.3.${'4'.repeat(1e6)}`,
      `::1%${'z'.repeat(1e6)}x!`,
    ]) {
      expect(parseIp(input)).toBeUndefined()
    }
  })

  it('departs from ipaddr.parse where a client could pick a fresh bucket by spelling (D1, D2, D5, D6)', () => {
    // ipaddr.parse reads these as addresses; a client address never has these forms, so Floodgate refuses them.
    expect(ipaddr.parse('0x7f.1').toString()).toBe('127.0.0.1')
    expect(ipaddr.parse('010.1.1.1').toString()).toBe('8.1.1.1')
    expect(ipaddr.parse('::ffff:01.2.3.4').toString()).toBe('::ffff:102:304')
    for (const input of ['0x7f.1', '010.1.1.1', '127.1', '::ffff:01.2.3.4'])
      expect(parseIp(input)).toBeUndefined()
    // ipaddr.js calls '::1.2.3.4' mapped but '0::1.2.3.4' and '::102:304' (the same address) plain IPv6:
    expect(ipaddr.process('::1.2.3.4').toString()).toBe('1.2.3.4')
    expect(ipaddr.process('0::1.2.3.4').kind()).toBe('ipv6')
    // Floodgate reads all three as 1.2.3.4, and '::0.0.0.1' as the ::1 it is (ipaddr.js: 0.0.0.1).
    for (const input of ['::1.2.3.4', '0::1.2.3.4', '::102:304'])
      expect(parseIp(input)).toEqual({ version: 4, text: '1.2.3.4' })
    expect(ipaddr.process('::0.0.0.1').toString()).toBe('0.0.0.1')
    expect(parseIp('::0.0.0.1')).toEqual({ version: 6, groups: [0, 0, 0, 0, 0, 0, 0, 1] })
  })
})

describe('allow-list ranges against ipaddr.js parseCIDR and match', () => {
  it('random ranges and clients near them', () => {
    const seen = { refused: 0, inside: 0, outside: 0 }
    fc.assert(
      fc.property(rangeAndClient, ({ entry, client }) => {
        const range = referenceRange(entry)
        expect(parseRange(entry) !== undefined, `range ${JSON.stringify(entry)}`).toBe(range !== undefined)
        if (range === undefined) return void seen.refused++
        const parsed = parseIp(client)
        if (parsed === undefined) return
        const inside = referenceMatch(range, reading(client))
        expect(
          compileAllowList([entry]).has(parsed),
          `${JSON.stringify(client)} in ${JSON.stringify(entry)}`,
        ).toBe(inside)
        seen[inside ? 'inside' : 'outside']++
      }),
      { numRuns: 5_000 },
    )
    for (const count of Object.values(seen)) expect(count).toBeGreaterThan(250)
  })
})

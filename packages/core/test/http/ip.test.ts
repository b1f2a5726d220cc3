import { describe, expect, it } from 'vitest'
import { ipKey, parseIp } from '../../src/http/ip.js'

const key = (ip: string, bits = 64) => {
  const parsed = parseIp(ip)
  return parsed && ipKey(parsed, bits)
}

describe('parseIp and ipKey', () => {
  it('keeps IPv4 as is and rejects what is not an address', () => {
    expect(key('203.0.113.7')).toBe('203.0.113.7')
    for (const bad of ['', 'unknown', '1.2.3', '256.1.1.1', '01.2.3.4', '1.2.3.4 ', 'fe80::zz', ':::']) {
      expect(parseIp(bad)).toBeUndefined()
    }
    expect(parseIp(undefined)).toBeUndefined()
  })

  it('turns IPv4-mapped IPv6 into IPv4, in dotted and in hex form', () => {
    expect(key('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(key('::ffff:cb00:7107')).toBe('203.0.113.7')
    expect(key('0:0:0:0:0:ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(key('::FFFF:10.0.0.1')).toBe('10.0.0.1')
  })

  it('groups IPv6 by /64 by default, whatever the spelling', () => {
    const expected = '2001:db8:1:2::/64'
    for (const ip of [
      '2001:db8:1:2::1',
      '2001:0db8:0001:0002:ffff:ffff:ffff:ffff',
      '2001:DB8:1:2:a::b',
      '[2001:db8:1:2::9]',
    ]) {
      expect(key(ip)).toBe(expected)
    }
    expect(key('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64')
  })

  it('drops zone ids', () => {
    expect(key('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(key('fe80::1%eth0', 128)).toBe('fe80:0:0:0:0:0:0:1')
  })

  it('takes any prefix length, including ones inside a group', () => {
    expect(key('2001:db8:abcd:12ff::1', 56)).toBe('2001:db8:abcd:1200::/56')
    expect(key('2001:db8:abcd:12ff::1', 48)).toBe('2001:db8:abcd::/48')
    expect(key('2001:db8:abcd:12ff::1', 1)).toBe('0::/1')
    expect(key('2001:db8::1', 128)).toBe('2001:db8:0:0:0:0:0:1')
    expect(key('::1', 128)).toBe('0:0:0:0:0:0:0:1')
  })

  it('parses an embedded IPv4 tail that is not a mapped address', () => {
    expect(key('64:ff9b::192.0.2.33', 128)).toBe('64:ff9b:0:0:0:0:c000:221')
  })
})

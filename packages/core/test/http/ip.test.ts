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

  it('turns IPv4-compatible IPv6 into IPv4 in every spelling, but keeps :: and ::1 as IPv6', () => {
    for (const ip of [
      '::203.0.113.7',
      '0::203.0.113.7',
      '0:0:0:0:0:0:203.0.113.7',
      '::cb00:7107',
      '[::203.0.113.7]',
    ]) {
      expect(key(ip)).toBe('203.0.113.7')
    }
    expect(key('::203.0.113.8')).toBe('203.0.113.8')
    expect(key('::2')).toBe('0.0.0.2')
    expect(key('::0.0.0.1', 128)).toBe('0:0:0:0:0:0:0:1')
    expect(key('::1', 128)).toBe('0:0:0:0:0:0:0:1')
    expect(key('::0.0.0.0', 128)).toBe('0:0:0:0:0:0:0:0')
    // Not compatible: IPv4-translated (::ffff:0:0/96) and NAT64 (64:ff9b::/96) addresses stay IPv6.
    expect(key('::ffff:0:203.0.113.7', 128)).toBe('0:0:0:0:ffff:0:cb00:7107')
  })

  it('refuses what some parsers read as octal, hex or short IPv4, and IPv4 tails in those forms', () => {
    for (const bad of [
      '010.1.1.1',
      '0x7f.0.0.1',
      '0x7f.1',
      '127.1',
      '4294967295',
      '::ffff:01.2.3.4',
      '::1.2.3.04',
    ]) {
      expect(parseIp(bad)).toBeUndefined()
    }
  })

  it('refuses malformed IPv6: two ::, too many or too few groups, long groups, stray colons', () => {
    for (const bad of [
      '1::2::3',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      '1:2:3:4::5:6:7:8',
      '12345::1',
      ':1::',
      '1:',
      '::ffff:1.2.3.4.5',
      '1:2:3:4:5:6:7:1.2.3.4',
      '[1.2.3.4]',
      '[::1',
      '\uff11::1',
    ]) {
      expect(parseIp(bad)).toBeUndefined()
    }
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

  it('drops zone ids made of RFC 6874 unreserved characters, and refuses others', () => {
    expect(key('fe80::1%eth0')).toBe('fe80:0:0:0::/64')
    expect(key('fe80::1%eth0', 128)).toBe('fe80:0:0:0:0:0:0:1')
    expect(key('[fe80::1%eth0.100]', 128)).toBe('fe80:0:0:0:0:0:0:1')
    expect(key('fe80::1%br-1_a~', 128)).toBe('fe80:0:0:0:0:0:0:1')
    for (const bad of [
      'fe80::1%',
      'fe80::1%eth 0',
      'fe80::1%a:b',
      'fe80::1%a%b',
      '1.2.3.4%eth0',
      '[fe80::1]%eth0',
    ]) {
      expect(parseIp(bad)).toBeUndefined()
    }
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

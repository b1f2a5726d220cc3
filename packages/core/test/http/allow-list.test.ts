import { describe, expect, it } from 'vitest'
import { compileAllowList, parseRange } from '../../src/http/allow-list.js'
import { parseIp } from '../../src/http/ip.js'

const has = (entries: string[], ip: string) => compileAllowList(entries).has(parseIp(ip)!)

describe('allow list', () => {
  it('matches IPv4 addresses and CIDRs', () => {
    expect(has(['10.0.0.0/8'], '10.255.1.2')).toBe(true)
    expect(has(['10.0.0.0/8'], '11.0.0.1')).toBe(false)
    expect(has(['192.0.2.7'], '192.0.2.7')).toBe(true)
    expect(has(['192.0.2.7'], '192.0.2.8')).toBe(false)
    expect(has(['0.0.0.0/0'], '198.51.100.1')).toBe(true)
    expect(has(['192.168.1.128/25'], '192.168.1.200')).toBe(true)
    expect(has(['192.168.1.128/25'], '192.168.1.127')).toBe(false)
  })

  it('matches IPv4-mapped clients against IPv4 ranges, and mapped ranges against IPv4 clients', () => {
    expect(has(['10.0.0.0/8'], '::ffff:10.1.1.1')).toBe(true)
    expect(has(['::ffff:10.0.0.0/104'], '10.1.1.1')).toBe(true)
    expect(has(['::ffff:10.0.0.0/104'], '11.1.1.1')).toBe(false)
  })

  it('reads IPv4-compatible clients and ranges as IPv4, whatever the spelling', () => {
    expect(has(['10.0.0.0/8'], '::10.1.1.1')).toBe(true)
    expect(has(['10.0.0.0/8'], '::a01:101')).toBe(true)
    expect(has(['::10.0.0.0/104'], '10.1.1.1')).toBe(true)
    expect(has(['::10.0.0.0/104'], '::ffff:10.1.1.1')).toBe(true)
    expect(has(['::10.0.0.0/104'], '11.1.1.1')).toBe(false)
  })

  it('never matches across families: an IPv6 range leaves IPv4 clients (mapped, compatible) alone', () => {
    for (const client of ['1.2.3.4', '::ffff:1.2.3.4', '::1.2.3.4']) expect(has(['::/0'], client)).toBe(false)
    expect(has(['::/0'], '::1')).toBe(true)
    expect(has(['::/0'], '2001:db8::1')).toBe(true)
    expect(has(['::/127'], '::1')).toBe(true)
  })

  it('matches IPv6 CIDRs, including prefixes inside a group', () => {
    expect(has(['2001:db8::/32'], '2001:db8:ffff::1')).toBe(true)
    expect(has(['2001:db8::/32'], '2001:db9::1')).toBe(false)
    expect(has(['2001:db8:ab00::/40'], '2001:db8:abff::1')).toBe(true)
    expect(has(['2001:db8:ab00::/40'], '2001:db8:ac00::1')).toBe(false)
    expect(has(['::1'], '::1')).toBe(true)
    expect(has(['[2001:db8::]/32'], '2001:db8::1')).toBe(true)
    expect(has(['fe80::%eth0/64'], 'fe80::1%eth1')).toBe(true)
    expect(has(['2001:db8::/32'], '10.0.0.1')).toBe(false)
    expect(has(['10.0.0.0/8'], '2001:db8::1')).toBe(false)
  })

  it('rejects invalid entries', () => {
    for (const bad of [
      '10.0.0.0/33',
      '2001:db8::/129',
      'example.com',
      '10.0.0.0/',
      '10.0.0.0/-1',
      '10.0.0/8',
      '010.0.0.0/8',
      '10.0.0.0/0x8',
      '10.0.0.0/0008',
      '::ffff:10.0.0.0/64',
      '::10.0.0.0/95',
      '[10.0.0.0]/8',
      '',
    ]) {
      expect(parseRange(bad)).toBeUndefined()
    }
  })
})

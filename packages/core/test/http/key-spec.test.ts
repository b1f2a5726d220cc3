import { describe, expect, it } from 'vitest'
import { compileKey, INVALID_KEY, type KeyFacts, keyValueText, routeText } from '../../src/http/key-spec.js'
import type { RequestInfo } from '../../src/http/request-info.js'

const info = (over: Partial<RequestInfo> = {}): RequestInfo => ({
  ip: '1.2.3.4',
  method: 'GET',
  route: '/users/:id',
  path: '/users/42?x=1',
  headers: {},
  native: { id: 'native' },
  ...over,
})
const facts = (over: Partial<KeyFacts> = {}): KeyFacts => ({
  info: info(),
  ip: '1.2.3.4',
  user: undefined,
  values: [],
  route: '/users/:id',
  plan: undefined,
  ...over,
})
const key = (spec: Parameters<typeof compileKey>[0], f: KeyFacts = facts(), scope = 's|') =>
  compileKey(spec, []).keyer(f, scope)

describe('key specs', () => {
  it("'ip', 'global' and 'endpoint' (method and route pattern, never the raw path)", () => {
    expect(key('ip')).toBe('s|{ip:1.2.3.4}')
    expect(key('global')).toBe('s|{global}')
    expect(key('endpoint')).toBe('s|{endpoint:GET /users/:id}')
    expect(key('endpoint', facts({ route: routeText(undefined) }))).toBe('s|{endpoint:GET *}')
    expect(key('endpoint', facts({ route: routeText(null) }))).toBe('s|{endpoint:GET (no route)}')
  })

  it("'user' is the user, or the IP when there is none", () => {
    expect(key('user', facts({ user: 'alice' }))).toBe('s|{user:alice}')
    expect(key('user')).toBe('s|{ip:1.2.3.4}')
    expect(key('user', facts({ ip: undefined }))).toBeUndefined()
  })

  it('a user id equal to an address never meets that address', () => {
    const asUser = key('user', facts({ user: keyValueText('1.2.3.4') as string }))
    expect(asUser).toBe('s|{user:1.2.3.4}')
    expect(asUser).not.toBe(key('ip'))
  })

  it('the partition is the caller, whatever the order of parts: one caller, one Cluster slot', () => {
    const alice = facts({ user: 'alice' })
    expect(key(['user', 'endpoint'], alice)).toBe('s|{user:alice}|endpoint:GET /users/:id')
    expect(key(['endpoint', 'user'], alice)).toBe('s|{user:alice}|endpoint:GET /users/:id')
    expect(key(['global', 'ip'])).toBe('s|{ip:1.2.3.4}|global')
    expect(key(['endpoint', 'global'])).toBe('s|{endpoint:GET /users/:id}|global')
  })

  it('escapes separators and braces so that parts cannot be forged', () => {
    const forged = keyValueText('x|endpoint:GET /admin}{') as string
    expect(forged).toBe('x%7Cendpoint:GET /admin%7D%7B')
    const both = key(['user', 'endpoint'], facts({ user: forged }))
    expect(both).toBe('s|{user:x%7Cendpoint:GET /admin%7D%7B}|endpoint:GET /users/:id')
    expect(both!.split('|')).toHaveLength(3)
    expect(both!.match(/[{}]/g)).toEqual(['{', '}'])
  })

  it('a missing address is undefined (an error), never a shared key', () => {
    expect(key('ip', facts({ ip: undefined }))).toBeUndefined()
    expect(key(['global', 'ip'], facts({ ip: undefined }))).toBeUndefined()
    expect(key(['global', 'endpoint'], facts({ ip: undefined }))).toBe('s|{endpoint:GET /users/:id}|global')
  })

  it('key functions are collected once and read from the facts; nothing falls back to the IP', () => {
    const functions: ((...args: any[]) => any)[] = []
    const fn = () => 'x'
    const a = compileKey(fn, functions)
    const b = compileKey(['endpoint', fn], functions)
    expect(functions).toEqual([fn])
    expect(a.keyer(facts({ values: ['tenant,7'] }), 'a|')).toBe('a|{key:tenant,7}')
    expect(b.keyer(facts({ values: ['t'] }), 'b|')).toBe('b|{key:t}|endpoint:GET /users/:id')
    expect(a.keyer(facts({ values: [undefined] }), 'a|')).toBe('a|{ip:1.2.3.4}')
  })

  it('what counts as a key value, and what is nothing or invalid', () => {
    expect(keyValueText(['tenant', 7])).toBe('tenant,7')
    expect(keyValueText(['a,b', 'c'])).toBe('a%2Cb,c')
    expect(keyValueText(7)).toBe('7')
    expect(keyValueText(7n)).toBe('7')
    for (const nothing of [undefined, null, '', [], [undefined], [null], [''], [undefined, undefined]]) {
      expect(keyValueText(nothing), JSON.stringify(nothing)).toBeUndefined()
    }
    for (const invalid of [
      true,
      {},
      Number.NaN,
      Number.POSITIVE_INFINITY,
      [[1]],
      [{}],
      () => 1,
      Symbol('s'),
    ]) {
      expect(keyValueText(invalid), String(invalid)).toBe(INVALID_KEY)
    }
    expect(keyValueText([undefined, 'x'])).toBe(',x')
    expect(keyValueText('x'.repeat(300))).toMatch(/^%H[\w-]{43}$/)
  })

  it('breadth: per caller, per address, per endpoint, global', () => {
    expect(compileKey('user', []).breadth).toBe(0)
    expect(compileKey(() => 1, []).breadth).toBe(0)
    expect(compileKey('ip', []).breadth).toBe(1)
    expect(compileKey(['ip', 'endpoint'], []).breadth).toBe(1)
    expect(compileKey('endpoint', []).breadth).toBe(2)
    expect(compileKey('global', []).breadth).toBe(3)
  })
})

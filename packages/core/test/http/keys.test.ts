import { describe, expect, it } from 'vitest'
import { compileKey, escapeKeyPart, type KeyContext, keyValueText } from '../../src/http/keys.js'
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
const ctx = (over: Partial<KeyContext> = {}): KeyContext => ({
  info: info(),
  ip: '1.2.3.4',
  user: undefined,
  ...over,
})

describe('keys', () => {
  it("'ip', 'global' and 'endpoint' (method and route pattern, never the raw path)", () => {
    expect(compileKey('ip')(ctx())).toBe('ip:1.2.3.4')
    expect(compileKey('global')(ctx())).toBe('global')
    expect(compileKey('endpoint')(ctx())).toBe('endpoint:GET /users/:id')
    expect(compileKey('endpoint')(ctx({ info: info({ route: undefined }) }))).toBe('endpoint:GET *')
  })

  it("'user' is the user, or the IP when there is none", () => {
    expect(compileKey('user')(ctx({ user: 'alice' }))).toBe('user:alice')
    expect(compileKey('user')(ctx())).toBe('ip:1.2.3.4')
    expect(compileKey('user')(ctx({ ip: undefined }))).toBeUndefined()
  })

  it('a user id equal to an address never meets that address', () => {
    expect(compileKey('user')(ctx({ user: keyValueText('1.2.3.4') }))).toBe('user:1.2.3.4')
    expect(compileKey('user')(ctx({ user: keyValueText('1.2.3.4') }))).not.toBe(compileKey('ip')(ctx()))
  })

  it('escapes separators so that parts cannot be forged', () => {
    expect(escapeKeyPart('a|ip:1.2.3.4')).toBe('a%7Cip:1.2.3.4')
    expect(escapeKeyPart('100%,x')).toBe('100%25%2Cx')
    const both = compileKey(['user', 'endpoint'])
    const forged = both(ctx({ user: keyValueText('x|endpoint:GET /admin') }))
    expect(forged).toBe('user:x%7Cendpoint:GET /admin|endpoint:GET /users/:id')
    expect(forged!.split('|')).toHaveLength(2)
  })

  it('a missing address is undefined (an error), never a shared key', () => {
    expect(compileKey('ip')(ctx({ ip: undefined }))).toBeUndefined()
    expect(compileKey(['global', 'ip'])(ctx({ ip: undefined }))).toBeUndefined()
    expect(compileKey(['global', 'endpoint'])(ctx({ ip: undefined }))).toBe('global|endpoint:GET /users/:id')
  })

  it('functions get the native request and may return a value, an array, or nothing (then the IP)', () => {
    const seen: unknown[] = []
    const fn = compileKey((req, i) => {
      seen.push(req, i.method)
      return ['tenant', 7]
    })
    expect(fn(ctx())).toBe('key:tenant,7')
    expect(seen).toEqual([{ id: 'native' }, 'GET'])
    expect(compileKey(() => undefined)(ctx())).toBe('ip:1.2.3.4')
    expect(compileKey(() => '')(ctx())).toBe('ip:1.2.3.4')
    expect(compileKey(() => [])(ctx())).toBe('ip:1.2.3.4')
    expect(compileKey(() => ['a,b', 'c'])(ctx())).toBe('key:a%2Cb,c')
  })
})

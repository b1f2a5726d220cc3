// The handler keeps, for the addresses it saw lately, what each gave (its key, or that the allow list has it)
// and the store keys built from it: correctness must not depend on them. Every address keeps its own bucket
// past the caches' bound, an allow-listed address is skipped and no other, a /64 still shares one bucket, and
// an address cut from a long header does not keep the header alive.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { KEPT_KEYS } from '../../src/http/key-spec.js'
import { MemoryStore } from '../../src/index.js'
import { createRateLimitHandler } from '../../src/internal.js'
import { requestFrom } from '../request-info.js'

const req = requestFrom
const allowedOf = (outcome: unknown) => (outcome as { kind: string }).kind === 'pass'

describe('the handler keeps what recent addresses gave', () => {
  it('every address keeps its own bucket, past the bound of what is kept', () => {
    const store = new MemoryStore()
    const handler = createRateLimitHandler({ limit: 2, window: '1h', store })
    const count = KEPT_KEYS + 500
    const ips = Array.from({ length: count }, (_, i) => `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`)
    // Three rounds: two allowed for each address, the third refused, whatever was kept in between.
    for (let round = 0; round < 3; round++) {
      for (const ip of ips) expect(allowedOf(handler.handle(req(ip)))).toBe(round < 2)
    }
    expect(store.size).toBe(count)
  })

  it('the same address in another string, or in pieces, is the same client', () => {
    const handler = createRateLimitHandler({ limit: 3, window: '1h' })
    const pieces = (a: string, b: string) => a + b
    expect(allowedOf(handler.handle(req('203.0.113.7')))).toBe(true)
    expect(allowedOf(handler.handle(req(pieces('203.0.', '113.7'))))).toBe(true)
    expect(allowedOf(handler.handle(req(JSON.parse('"203.0.113.7"'))))).toBe(true)
    expect(allowedOf(handler.handle(req('203.0.113.7')))).toBe(false)
  })

  it('an allow-listed address is skipped every time, and the next address is counted', () => {
    const handler = createRateLimitHandler({ limit: 1, window: '1h', allowList: ['192.0.2.0/24'] })
    for (let i = 0; i < 3; i++) expect(handler.handle(req('192.0.2.9'))).toMatchObject({ skipped: true })
    expect(handler.handle(req('192.0.3.9'))).toMatchObject({ skipped: false, kind: 'pass' })
    expect(handler.handle(req('192.0.3.9'))).toMatchObject({ skipped: false, kind: 'answer' })
    expect(handler.handle(req('192.0.2.9'))).toMatchObject({ skipped: true })
  })

  it('addresses of one IPv6 /64 share a bucket, kept or not', () => {
    const handler = createRateLimitHandler({ limit: 2, window: '1h' })
    expect(allowedOf(handler.handle(req('2001:db8:0:1::1')))).toBe(true)
    expect(allowedOf(handler.handle(req('2001:db8:0:1::2')))).toBe(true)
    expect(allowedOf(handler.handle(req('2001:db8:0:1::1')))).toBe(false)
    expect(allowedOf(handler.handle(req('2001:db8:0:2::1')))).toBe(true)
  })

  it('a missing or malformed address is never kept as a key: it gets the no-address answer every time', () => {
    const handler = createRateLimitHandler({ limit: 100, window: '1h', onError: () => {} })
    for (const ip of [undefined, '', 'not an address', '999.1.1.1', 'x'.repeat(100)]) {
      for (let i = 0; i < 2; i++)
        expect(handler.handle(req(ip))).toMatchObject({ kind: 'answer', status: 500 })
    }
  })
})

const dist = new URL('../../dist/internal.js', import.meta.url).href
const probe = `
import { createRateLimitHandler } from ${JSON.stringify(dist)}
const handler = createRateLimitHandler({ limit: 10, window: '1h' })
gc()
const before = process.memoryUsage().heapUsed
for (let i = 0; i < 500; i++) {
  // An address cut from a 64 KB X-Forwarded-For value, as proxy-addr cuts it: a view of the whole header when
  // it has 13 characters or more. IPv4 keys are the request's own string; IPv6 ones are rebuilt.
  const header = (process.argv[1] === '4'
    ? '203.' + (100 + (i >> 7)) + '.113.' + (100 + (i & 127))
    : '2001:0db8:0000:' + i.toString(16).padStart(4, '0') + '::1') + ',' + ' '.repeat(65536)
  handler.handle({ ip: header.substring(0, header.indexOf(',')), method: 'GET', route: '/', path: '/', headers: {}, native: {} })
}
gc()
console.log(String(process.memoryUsage().heapUsed - before))
`

describe('addresses kept by the handler', () => {
  it.each(['4', '6'])(
    'keep their own characters: 500 IPv%s addresses cut from 64 KB headers hold under 4 MB, not 32 MB',
    (version) => {
      const retained = Number(
        execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', probe, version], {
          cwd: fileURLToPath(new URL('.', import.meta.url)),
          encoding: 'utf8',
        }).trim(),
      )
      expect(retained).toBeLessThan(4 * 1024 * 1024)
    },
  )
})

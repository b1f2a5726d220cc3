// Regression: setups that merge or split clients went unnoticed: X-Forwarded-For arriving while the
// framework trusts no proxy (every client behind the proxy is one bucket), trust proxy `true` (any client
// picks its own address), Fastify's numeric trustProxy (ignored by Fastify 5: every client is the proxy), an
// 'endpoint' key where no route is known. Each is now a process warning, once, with a stable code and a link
// to docs/errors.md, and each can be turned off.
import { MemoryStore } from '@floodgate/core'
import { forgetRaisedWarnings } from '@floodgate/core/internal'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { drivers, fwd, openApps } from '../../src/index.js'

let warnings: { message: string; code: string }[] = []
beforeEach(() => {
  warnings = []
  forgetRaisedWarnings()
  vi.spyOn(process, 'emitWarning').mockImplementation(((message: string, options: { code: string }) => {
    warnings.push({ message, code: options.code })
  }) as never)
})
afterEach(() => vi.restoreAllMocks())

const codes = () => warnings.map((w) => w.code)

describe.each(drivers)('$name', (driver) => {
  const open = openApps()
  const app = async (trustProxy: boolean | 'loopback', options: Record<string, unknown> = {}) =>
    open(
      await driver.createApp({
        trustProxy,
        options: { limit: 100, window: '1m', store: new MemoryStore(), ...options },
      }),
    )

  it('X-Forwarded-For while no proxy is trusted warns once, with a code and a link; it can be turned off', async () => {
    const a = await app(false)
    await a.request({ path: '/' })
    expect(codes()).toEqual([])
    await a.request({ path: '/', headers: fwd('198.51.100.1') })
    await a.request({ path: '/', headers: fwd('198.51.100.2') })
    expect(codes()).toEqual(['ERR_FLOODGATE_FORWARDED_HEADER_IGNORED'])
    expect(warnings[0]!.message).toContain('docs/errors.md#err_floodgate_forwarded_header_ignored')
  })

  it('trusting every proxy warns once', async () => {
    const a = await app(true)
    await a.request({ path: '/', headers: fwd('198.51.100.1') })
    await a.request({ path: '/', headers: fwd('198.51.100.2') })
    expect(codes()).toEqual(['ERR_FLOODGATE_PERMISSIVE_TRUST_PROXY'])
  })

  it('trusting only the proxy is quiet', async () => {
    const a = await app('loopback')
    await a.request({ path: '/', headers: fwd('198.51.100.1') })
    expect(codes()).toEqual([])
  })

  it('warnings: false, or one turned off by name, is quiet', async () => {
    const off = await app(true, { warnings: false })
    await off.request({ path: '/', headers: fwd('198.51.100.1') })
    const one = await app(false, { warnings: { forwardedHeader: false } })
    await one.request({ path: '/', headers: fwd('198.51.100.1') })
    expect(codes()).toEqual([])
  })

  it("an 'endpoint' key on an app-wide limiter is quiet: the route is found before routing", async () => {
    // Express and Koa find it from the app's own router (Koa: @koa/router's middleware); Fastify always knows.
    // Koa with no router it can find still warns: endpoint-keys-under-routers.test.ts.
    const a = await app(false, { key: 'endpoint' })
    await a.request({ path: '/' })
    await a.request({ path: '/' })
    expect(codes()).toEqual([])
  })
})

describe('fastify', () => {
  it('a numeric trustProxy warns at registration: Fastify 5 trusts no proxy for a hop count', async () => {
    const { default: Fastify } = await import('fastify')
    const { rateLimit } = await import('@floodgate/fastify')
    const app = Fastify({ trustProxy: 1 as never }) // Fastify 5's types no longer allow a hop count; JavaScript users still pass one
    await app.register(rateLimit, { limit: 10, window: '1m' })
    await app.ready()
    expect(codes()).toEqual(['ERR_FLOODGATE_HOP_COUNT_TRUST_PROXY'])
    expect(warnings[0]!.message).toContain("trustProxy: '10.0.0.0/8'")
    await app.close()
  })
})

import { once } from 'node:events'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { rateLimit as expressRateLimit } from '@floodgate/express'
import { rateLimit as fastifyRateLimit } from '@floodgate/fastify'
import { rateLimit as koaRateLimit } from '@floodgate/koa'
import { type VirtualClock, virtualClock } from '@floodgate/testing'
import express from 'express'
import Fastify from 'fastify'
import Koa from 'koa'

/** A real server listening on 127.0.0.1, and what it answered. */
export interface TestServer {
  readonly url: string
  /** The statuses it sent, in order. */
  readonly statuses: number[]
  close(): Promise<void>
}

export type Adapter = 'express' | 'fastify' | 'koa'
export const ADAPTERS: readonly Adapter[] = ['express', 'fastify', 'koa']

const urlOf = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

const closing = (server: Server) => () =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

/**
 * An app built with one of our adapters, `rateLimit(options)` on every request, answering
 * `{ ok: true }`. `options` gets the virtual clock.
 */
export async function adapterServer(
  adapter: Adapter,
  clock: VirtualClock,
  options: Record<string, unknown>,
): Promise<TestServer> {
  const statuses: number[] = []
  const limits = { ...options, clock: clock.now }
  if (adapter === 'fastify') {
    const app = Fastify()
    await app.register(fastifyRateLimit, limits)
    app.addHook('onResponse', async (_request, reply) => {
      statuses.push(reply.statusCode)
    })
    app.all('/*', async () => ({ ok: true }))
    await app.listen({ port: 0, host: '127.0.0.1' })
    return { url: urlOf(app.server), statuses, close: () => app.close() }
  }
  let server: Server
  if (adapter === 'express') {
    const app = express()
    app.use((_req, res, next) => {
      res.on('finish', () => statuses.push(res.statusCode))
      next()
    })
    app.use(expressRateLimit(limits))
    app.use((_req, res) => {
      res.json({ ok: true })
    })
    server = app.listen(0, '127.0.0.1')
  } else {
    const app = new Koa()
    app.use(async (ctx, next) => {
      ctx.res.on('finish', () => statuses.push(ctx.status))
      await next()
    })
    app.use(koaRateLimit(limits))
    app.use((ctx) => {
      ctx.body = { ok: true }
    })
    server = app.listen(0, '127.0.0.1')
  }
  await once(server, 'listening')
  return { url: urlOf(server), statuses, close: closing(server) }
}

/** A plain `node:http` server whose every answer `respond` writes (odd headers and all). */
export async function plainServer(respond: (req: IncomingMessage, res: ServerResponse, n: number) => void) {
  const statuses: number[] = []
  let n = 0
  const server = createServer((req, res) => {
    res.on('finish', () => statuses.push(res.statusCode))
    respond(req, res, n++)
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { url: urlOf(server), statuses, close: closing(server) } satisfies TestServer
}

/** 2026-01-01T12:00:00Z: aligned to every window the tests use. */
export const START = Date.UTC(2026, 0, 1, 12)

/**
 * Virtual time for the client: `sleep` records each wait and moves the clock the server reads too; nothing
 * waits for real.
 */
export function virtualTime(start = START) {
  const clock = virtualClock(start)
  const sleeps: number[] = []
  const sleep = async (ms: number) => {
    sleeps.push(ms)
    clock.advance(ms)
  }
  return { clock, sleeps, sleep, now: clock.now }
}

/** A sleep that never ends by itself, so only an abort can end the wait; `entered` resolves once it is called. */
export function stuckSleep() {
  let enter: () => void = () => {}
  const entered = new Promise<void>((resolve) => {
    enter = resolve
  })
  const sleep = () => {
    enter()
    return new Promise<void>(() => {})
  }
  return { sleep, entered }
}

// The one test on the real clock: a 1 s window on a real Express server, the client with its real timers.
// It asserts the order of events and a lower bound on the wait, never an upper one.
import { once } from 'node:events'
import type { AddressInfo } from 'node:net'
import { slidingWindowLog } from '@floodgate/core'
import { rateLimit } from '@floodgate/express'
import express from 'express'
import { expect, it } from 'vitest'
import { createFetch } from '../src/fetch.js'
import type { RetryEvent } from '../src/options.js'

it('end to end on the real clock: refused, waits Retry-After, then passes', async () => {
  const statuses: number[] = []
  const app = express()
  app.use((_req, res, next) => {
    res.on('finish', () => statuses.push(res.statusCode))
    next()
  })
  // A rolling window: a fixed one turns on the clock's second, and a turn between the first two requests let
  // the second through with no refusal (seen once in a full run).
  app.use(rateLimit({ algorithm: slidingWindowLog({ limit: 1, window: '1s' }) }))
  app.use((_req, res) => {
    res.json({ ok: true })
  })
  const server = app.listen(0, '127.0.0.1')
  await once(server, 'listening')
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
    const events: RetryEvent[] = []
    const politeFetch = createFetch({ baseDelay: '50ms', onRetry: (e) => events.push(e) })
    expect((await politeFetch(url)).status).toBe(200)
    const started = Date.now()
    const res = await politeFetch(url)
    expect(res.status).toBe(200)
    expect(statuses).toEqual([200, 429, 200])
    expect(events).toHaveLength(1)
    expect(events[0]!.serverWaitMs).toBe(1_000)
    // Timers may fire a millisecond early by Date.now().
    expect(Date.now() - started).toBeGreaterThanOrEqual(990)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

// priorityQueue in Express, Fastify and Koa over real HTTP: premium first, 429 when full, 503 after maxWait
// (virtual timers), and a client that disconnects while queued leaves at once and is never served.

import { virtualClock, virtualTimers } from '@floodgate/testing'
import { describe, expect, it } from 'vitest'
import { drivers } from '../../src/drivers/index.js'
import type { AppGates } from '../../src/types.js'
import { heldApps, send, until } from './http.js'

const byPlan = (req: { headers: Record<string, unknown> }) => req.headers['x-plan'] as string

describe.each(drivers)('priorityQueue on $name', (driver) => {
  const apps = heldApps(driver)
  const { held } = apps
  const start = (options: Record<string, unknown>) => apps.start({ priorityQueue: options })
  const queued = (gates: Required<AppGates>) =>
    Object.values(gates.priorityQueue.stats().queued).reduce((a, b) => a + b, 0)

  it('serves premium first, standard once premium is empty, first in first out within each', async () => {
    const { base, gates } = await start({
      concurrency: 1,
      queues: { premium: { capacity: 5 }, standard: { capacity: 5 } },
      priority: byPlan,
    })
    const sent = [send(base, { 'x-plan': 'standard', 'x-id': 'first' })]
    await until(() => held.started.length === 1, 'the first request to start')
    const order = [
      ['standard', 's1'],
      ['premium', 'p1'],
      ['standard', 's2'],
      ['premium', 'p2'],
    ]
    for (const [i, [plan, id]] of order.entries()) {
      sent.push(send(base, { 'x-plan': plan!, 'x-id': id! }))
      await until(() => queued(gates) === i + 1, `${id} to wait`)
    }
    for (let served = 2; served <= 5; served++) {
      held.release()
      await until(() => held.started.length === served, `request ${served} to start`)
    }
    held.release()
    expect(held.started).toEqual(['first', 'p1', 'p2', 's1', 's2'])
    expect((await Promise.all(sent.map((s) => s.response))).map((r) => r.status)).toEqual([
      200, 200, 200, 200, 200,
    ])
    await until(() => gates.priorityQueue.stats().inFlight === 0, 'every place to be given back')
  })

  it('answers a full queue 429 with Retry-After and a JSON body', async () => {
    const { base, gates } = await start({ concurrency: 1, queues: { only: { capacity: 1 } } })
    const first = send(base, { 'x-id': 'first' })
    await until(() => held.started.length === 1)
    const second = send(base, { 'x-id': 'second' })
    await until(() => queued(gates) === 1)
    const full = await send(base, { 'x-id': 'third' }).response
    expect(full.status).toBe(429)
    expect(full.headers['retry-after']).toBe('1')
    expect(full.headers['cache-control']).toBe('no-store')
    expect(full.headers['content-type']).toMatch(/^application\/json/)
    expect(full.body).toMatchObject({ error: 'queue_full', retryAfter: 1, priority: 'only' })
    held.releaseAll()
    await until(() => held.started.length === 2)
    held.releaseAll()
    expect((await first.response).status).toBe(200)
    expect((await second.response).status).toBe(200)
  })

  it('answers 503 with Retry-After once a request waited maxWait (virtual timers)', async () => {
    const clock = virtualClock(1_000_000)
    const timers = virtualTimers(clock)
    const { base, gates } = await start({
      concurrency: 1,
      queues: { only: { capacity: 5 } },
      maxWait: '5s',
      clock: clock.now,
      timers,
      format: 'problem+json',
    })
    send(base, { 'x-id': 'first' })
    await until(() => held.started.length === 1)
    const waiting = send(base, { 'x-id': 'second' })
    await until(() => queued(gates) === 1)
    timers.advance(5000)
    const timedOut = await waiting.response
    expect(timedOut.status).toBe(503)
    expect(timedOut.headers['retry-after']).toBe('1')
    expect(timedOut.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(timedOut.body).toMatchObject({
      type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
      status: 503,
      priority: 'only',
    })
    expect(held.started).toEqual(['first'])
  })

  it('a client that disconnects while queued leaves at once; the next one takes the place', async () => {
    const { base, gates } = await start({ concurrency: 1, queues: { only: { capacity: 2 } } })
    const first = send(base, { 'x-id': 'first' })
    await until(() => held.started.length === 1)
    const leaver = send(base, { 'x-id': 'leaver' })
    await until(() => queued(gates) === 1)
    const next = send(base, { 'x-id': 'next' })
    await until(() => queued(gates) === 2)
    leaver.abort()
    await until(() => queued(gates) === 1, 'the leaver to leave its queue')
    const another = send(base, { 'x-id': 'another' }) // its place is free again: it waits, not 429
    await until(() => queued(gates) === 2)
    held.release()
    await until(() => held.started.length === 2)
    held.release()
    await until(() => held.started.length === 3)
    held.release()
    expect(held.started).toEqual(['first', 'next', 'another'])
    expect((await first.response).status).toBe(200)
    expect((await next.response).status).toBe(200)
    expect((await another.response).status).toBe(200)
    await until(() => gates.priorityQueue.stats().inFlight === 0, 'every place to be given back')
  })

  it('a priority function that throws serves the request at the lowest priority and reports it', async () => {
    const errors: string[] = []
    const { base } = await start({
      concurrency: 2,
      queues: { premium: { capacity: 1 }, standard: { capacity: 1 } },
      priority: () => {
        throw new Error('plan lookup failed')
      },
      onError: (error: { code: string }) => errors.push(error.code),
    })
    const answer = send(base, { 'x-id': 'a' })
    await until(() => held.started.length === 1)
    held.release()
    expect((await answer.response).status).toBe(200)
    expect(errors).toEqual(['ERR_FLOODGATE_FUNCTION_FAILED'])
  })
})

// The `metrics` option through Express, Fastify and Koa over real HTTP: each adapter passes it to core
// untouched, so the limiter, the load shedder and the priority queue report the same counts on every
// framework, checked against the requests sent (a recording sink keeps them).
import { fixedWindow } from '@floodgate/core'
import { recordingSink } from '@floodgate/test-harness'
import { describe, expect, it } from 'vitest'
import { drivers } from '../../src/drivers/index.js'
import { openApps, statusesOf } from '../../src/harness.js'
import { heldApps, send, until } from '../degradation/http.js'

describe.each(drivers)('metrics on $name', (driver) => {
  const open = openApps()
  const gated = heldApps(driver)
  const { held } = gated

  it('the limiter: requests by outcome, decisions by policy, near-limit, as sent', async () => {
    const sink = recordingSink()
    const app = open(
      await driver.createApp({
        options: {
          limits: [
            { name: 'ip', key: 'ip', algorithm: fixedWindow({ limit: 100, window: '1m' }) },
            { name: 'burst', key: 'ip', algorithm: fixedWindow({ limit: 3, window: '1m' }) },
          ],
          skip: (_req: unknown, info: { path: string }) => info.path.startsWith('/health'),
          metrics: sink,
        },
        routes: [{ path: '/' }, { path: '/health' }],
      }),
    )
    expect(await statusesOf(app, 4)).toEqual([200, 200, 200, 429])
    expect((await app.request({ path: '/health' })).status).toBe(200)
    const requests = (outcome: string) => sink.count('floodgate.requests', { outcome })
    const decisions = (policy: string, outcome: string) =>
      sink.count('floodgate.decisions', { policy, outcome })
    expect([requests('allowed'), requests('limited'), requests('skipped')]).toEqual([3, 1, 1])
    expect([decisions('burst', 'allowed'), decisions('burst', 'limited')]).toEqual([3, 1])
    expect([decisions('ip', 'allowed'), decisions('ip', 'limited')]).toEqual([4, 0])
    expect(sink.count('floodgate.near_limit', { policy: 'burst' })).toBe(1) // the third left 0 of 3
  })

  it('the load shedder: requests shed by class and cause', async () => {
    const sink = recordingSink()
    const { base } = await gated.start({ loadShedder: { maxInFlight: 1, metrics: sink } })
    const first = send(base)
    await until(() => held.started.length === 1, 'the first request to start')
    expect((await send(base).response).status).toBe(503)
    held.releaseAll()
    expect((await first.response).status).toBe(200)
    expect(sink.count('floodgate.shed', { priority: 'sheddable', cause: 'in_flight' })).toBe(1)
    expect(sink.count('floodgate.shed', { priority: 'sheddable', cause: 'event_loop_delay' })).toBe(0)
  })

  it('the priority queue: its depth, each wait, a full queue', async () => {
    const sink = recordingSink()
    const { base } = await gated.start({
      priorityQueue: { concurrency: 1, queues: { standard: { capacity: 1 } }, metrics: sink },
    })
    const depth = () => sink.gaugeValue('floodgate.queue.depth', { queue: 'standard' })
    const first = send(base, { 'x-id': 'first' })
    await until(() => held.started.length === 1, 'the first request to start')
    const queued = send(base, { 'x-id': 'queued' })
    await until(() => depth() === 1, 'a queued request')
    expect((await send(base).response).status).toBe(429)
    held.release()
    await until(() => held.started.length === 2, 'the queued request to start')
    held.releaseAll()
    expect((await first.response).status).toBe(200)
    expect((await queued.response).status).toBe(200)
    expect(depth()).toBe(0)
    const waits = sink.observations('floodgate.queue.wait', { queue: 'standard' })
    expect(waits).toHaveLength(2)
    expect(waits[0]).toBe(0)
    expect(waits[1]).toBeGreaterThan(0)
    expect(sink.count('floodgate.queue.refusals', { queue: 'standard', reason: 'full' })).toBe(1)
    expect(sink.count('floodgate.queue.refusals', { queue: 'standard', reason: 'timeout' })).toBe(0)
  })
})

import { request as httpRequest } from 'node:http'
import { concurrency, fixedWindow } from '@floodgate/core'
import { peekLimit } from '@floodgate/testing'
import { describe, expect, it, vi } from 'vitest'
import type { SuiteContext } from '../harness.js'
import type { AdapterRoute } from '../types.js'

let runs = 0
/** A prefix of the test's own: the apps of one describe block share a store. */
const ownPrefix = () => `concurrency-${process.pid}-${runs++}`

/** A route held open until the test lets it answer, and a promise of its start. */
function heldRoute(path = '/slow'): { route: AdapterRoute; started: Promise<void>; finish: () => void } {
  let started!: () => void
  let finish!: () => void
  const startedPromise = new Promise<void>((resolve) => {
    started = resolve
  })
  const gate = new Promise<void>((resolve) => {
    finish = resolve
  })
  return {
    route: {
      path,
      wait: () => {
        started()
        return gate
      },
    },
    started: startedPromise,
    finish,
  }
}

/** The scenarios of `concurrency`: units held while a response runs, given back when it ends or its client leaves. */
export function concurrencyLimits({ app, get, store, clock }: SuiteContext): void {
  describe('concurrency limits', () => {
    it('the second request in flight is refused (429, Retry-After: 1); once the first ends, the next passes', async () => {
      const held = heldRoute()
      const a = await app({
        routes: [held.route, { path: '/' }],
        options: {
          limits: [{ name: 'inflight', key: 'ip', algorithm: concurrency({ limit: 1, lease: '10m' }) }],
        },
      })
      const first = get(a, '/slow')
      await held.started
      const refused = await get(a, '/')
      expect(refused.status).toBe(429)
      expect(refused.headers['retry-after']).toBe('1')
      expect(refused.body).toMatchObject({ error: 'rate_limited', policy: 'inflight' })
      held.finish()
      expect((await first).status).toBe(200)
      await vi.waitFor(() => expect(store().releases).toBe(1))
      const next = await get(a, '/')
      expect(next.status).toBe(200)
      expect(next.headers['ratelimit-remaining']).toBe('0') // free units, after this request took one
      await vi.waitFor(() => expect(store().releases).toBe(2))
      expect((await get(a, '/')).status).toBe(200)
    })

    it('a client that leaves gives its unit back, once', async () => {
      const held = heldRoute()
      const algorithm = concurrency({ limit: 1, lease: '10m' })
      const prefix = ownPrefix()
      const a = await app({
        routes: [held.route, { path: '/' }],
        options: { prefix, limits: [{ name: 'inflight', key: 'global', algorithm }] },
      })
      const base = await a.listen()
      const aborted = new Promise<void>((resolve) => {
        const req = httpRequest(`${base}/slow`)
        req.on('error', () => resolve())
        req.on('close', () => resolve())
        req.end()
        void held.started.then(() => req.destroy())
      })
      await aborted
      await vi.waitFor(() => expect(store().releases).toBe(1))
      const read = () =>
        peekLimit({
          store: store(),
          algorithm,
          policy: 'inflight',
          prefix,
          client: 'global',
          now: clock.now(),
        })
      expect((await read()).remaining).toBe(1)
      expect((await get(a, '/')).status).toBe(200)
      held.finish() // the left request's handler ends now: its unit is not given back again
      await vi.waitFor(() => expect(store().releases).toBe(2))
      expect((await read()).remaining).toBe(1)
    })

    it('with a rate policy, one decision: a request either policy refuses holds no unit and spends no rate', async () => {
      const held = heldRoute()
      const inflight = concurrency({ limit: 1, lease: '10m' })
      const prefix = ownPrefix()
      const a = await app({
        routes: [held.route, { path: '/' }],
        options: {
          prefix,
          limits: [
            { name: 'inflight', key: 'global', algorithm: inflight },
            { name: 'rate', key: 'global', algorithm: fixedWindow({ limit: 3, window: '1m' }) },
          ],
        },
      })
      const slow = get(a, '/slow') // rate 1 of 3, holds the unit
      await held.started
      expect((await get(a, '/')).status).toBe(429) // the concurrency policy refuses: no rate spent
      expect((await get(a, '/')).status).toBe(429)
      held.finish()
      expect((await slow).status).toBe(200)
      await vi.waitFor(() => expect(store().releases).toBe(1))
      expect(await Promise.all([get(a, '/')]).then((rs) => rs.map((r) => r.status))).toEqual([200]) // rate 2
      await vi.waitFor(() => expect(store().releases).toBe(2))
      expect((await get(a, '/')).status).toBe(200) // rate 3
      await vi.waitFor(() => expect(store().releases).toBe(3))
      const refused = await get(a, '/') // the rate policy refuses: no unit held
      expect(refused.status).toBe(429)
      expect(refused.body).toMatchObject({ policy: 'rate' })
      const read = () =>
        peekLimit({
          store: store(),
          algorithm: inflight,
          policy: 'inflight',
          prefix,
          client: 'global',
          now: clock.now(),
        })
      expect((await read()).remaining).toBe(1)
    })

    it("a later limiter that refuses gives the earlier limiter's unit back", async () => {
      const inflight = concurrency({ limit: 1, lease: '10m' })
      const prefix = ownPrefix()
      const a = await app({
        routes: [{ path: '/limited', rateLimit: { limit: 1, window: '1m' } }, { path: '/' }],
        options: { prefix, limits: [{ name: 'inflight', key: 'global', algorithm: inflight }] },
      })
      const read = () =>
        peekLimit({
          store: store(),
          algorithm: inflight,
          policy: 'inflight',
          prefix,
          client: 'global',
          now: clock.now(),
        })
      // (Fastify: a route's config.rateLimit replaces the app's policies, so no unit is taken on that route.)
      expect((await get(a, '/limited')).status).toBe(200)
      await vi.waitFor(async () => expect((await read()).remaining).toBe(1))
      expect((await get(a, '/limited')).status).toBe(429)
      await vi.waitFor(async () => expect((await read()).remaining).toBe(1))
      expect((await get(a, '/')).status).toBe(200)
    })
  })
}

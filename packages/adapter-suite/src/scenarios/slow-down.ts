import type { Timers } from '@floodgate/core/internal'
import { describe, expect, it } from 'vitest'
import { brokenStore, errorLog, fwd, type SuiteContext } from '../harness.js'

/** Timers that record each delay and end it at once (in a later turn of the event loop): no test sleeps. */
export function recordingTimers(): Timers & { waits: number[] } {
  const waits: number[] = []
  return {
    waits,
    set(fn, ms) {
      waits.push(ms)
      return setImmediate(fn)
    },
    clear(handle) {
      clearImmediate(handle as ReturnType<typeof setImmediate>)
    },
  }
}

/** The scenarios of `slowDown`, for one adapter on one store. */
export function slowDown({ app, get, clock }: SuiteContext): void {
  describe('slow down', () => {
    it('delays each request past `after` by `delay` more, up to maxDelay, never refuses; the app reads what happened', async () => {
      const timers = recordingTimers()
      const a = await app({
        degradation: { slowDown: { after: 2, delay: '1s', maxDelay: '2500ms', timers, headers: 'draft-7' } },
      })
      const responses = []
      for (let i = 0; i < 6; i++) responses.push(await get(a))
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200])
      expect(timers.waits).toEqual([1000, 2000, 2500, 2500])
      expect(responses.map((r) => r.headers['floodgate-delay'])).toEqual([
        undefined,
        undefined,
        '1000',
        '2000',
        '2500',
        '2500',
      ])
      expect(responses[0]!.body).toEqual({
        ok: true,
        slowDown: { limit: 2, used: 1, remaining: 1, reset: 60, delay: 0 },
      })
      // Its window turns 60 s after it was counted, 57.5 s after its delay: 58 whole seconds.
      expect(responses[4]!.body.slowDown).toEqual({ limit: 2, used: 5, remaining: 0, reset: 58, delay: 2500 })
      expect(responses[1]!.headers.ratelimit).toBe('limit=2, remaining=0, reset=60')
      expect(responses[1]!.headers['ratelimit-policy']).toBe('2;w=60')
    })

    it('counts each client apart, and starts again when the window turns', async () => {
      const timers = recordingTimers()
      const a = await app({ trustProxy: true, degradation: { slowDown: { after: 1, timers } } })
      await get(a, '/', fwd('203.0.113.1'))
      expect((await get(a, '/', fwd('203.0.113.1'))).body.slowDown).toMatchObject({ used: 2, delay: 1000 })
      expect((await get(a, '/', fwd('203.0.113.2'))).body.slowDown).toMatchObject({ used: 1, delay: 0 })
      clock.advance(60_000)
      const fresh = await get(a, '/', fwd('203.0.113.1'))
      expect(fresh.body.slowDown).toMatchObject({ used: 1, delay: 0 })
      expect(fresh.headers['floodgate-delay']).toBeUndefined()
      expect(timers.waits).toEqual([1000])
    })

    it('a store that fails delays nobody: the request goes on at once, reported to onError', async () => {
      const timers = recordingTimers()
      const log = errorLog()
      const a = await app({
        degradation: { slowDown: { after: 0, timers, store: brokenStore('reject'), onError: log.onError } },
      })
      const res = await get(a)
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ ok: true })
      expect(timers.waits).toEqual([])
      expect(log.codes()).toEqual(['ERR_FLOODGATE_STORE_FAILED'])
    })
  })
}

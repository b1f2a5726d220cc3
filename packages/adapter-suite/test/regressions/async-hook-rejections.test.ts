// Regression: a hook that returned a rejected promise was an unhandled rejection, and the process exited (exit 1
// on Node's default): an `onError: async (error) => { await logSink.write(error) }` whose sink was down ended an
// Express server on the first forged request, and so did the async `onError` of `priorityQueue` and
// `loadShedder`, an async `onLimited` (its rejection also went unreported), a metrics sink whose instruments send
// asynchronously, and a `sleep` that failed (taken for a store failure). Every function the app gives goes through
// one guard now: a throw and a rejection are handled alike, on every adapter.
import { fixedWindow, leakyBucket, MemoryStore } from '@floodgate/core'
import { watchUnhandled } from '@floodgate/test-harness'
import { beforeEach, describe, expect, it } from 'vitest'
import { drivers, errorLog, fwd, openApps, statusesOf } from '../../src/index.js'

const unhandled = watchUnhandled()
// Each test answers for its own requests only.
beforeEach(() => {
  unhandled.splice(0)
})

/** Let rejections made by the last request settle (an unhandled one is reported after the microtasks). */
const settled = () => new Promise((resolve) => setImmediate(resolve))

/** A log sink that is down: every write rejects. */
const logSink = { write: async (_entry: unknown) => Promise.reject(new Error('log sink is down')) }

type Req = { headers: Record<string, string | undefined> }

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it("an async onError whose sink is down, told of a key function's failure: the server goes on", async () => {
    const a = open(
      await driver.createApp({
        trustProxy: true,
        options: {
          limit: 2,
          window: '1m',
          store: new MemoryStore(),
          key: (req: Req) => {
            if (req.headers['x-session'] === 'forged') throw new Error('forged session')
            return req.headers['x-session']
          },
          onError: async (error: unknown) => {
            await logSink.write(error)
          },
        },
      }),
    )
    const forged = { ...fwd('198.51.100.7'), 'x-session': 'forged' }
    // Counted by its address (the key failed), refused at the limit: the process is still there to answer.
    expect(await statusesOf(a, 3, { headers: forged })).toEqual([200, 200, 429])
    expect(await statusesOf(a, 1, { headers: { ...fwd('198.51.100.8'), 'x-session': 's1' } })).toEqual([200])
    await settled()
    expect(unhandled).toEqual([])
  })

  it('an async onError that rejects on a store failure: the request still fails open', async () => {
    const failing = {
      consume: () => Promise.reject(new Error('store is down')),
      peek: () => Promise.reject(new Error('store is down')),
      refund: async () => {},
      reset: async () => {},
      close: () => undefined,
    }
    const a = open(
      await driver.createApp({
        options: {
          limit: 1,
          window: '1m',
          store: failing,
          onError: () => Promise.reject(new Error('alerting is down')),
        },
      }),
    )
    expect(await statusesOf(a, 2)).toEqual([200, 200])
    await settled()
    expect(unhandled).toEqual([])
  })

  it('an async onLimited that rejects: the refusal is sent and the rejection goes to onError', async () => {
    const log = errorLog()
    const a = open(
      await driver.createApp({
        options: {
          limit: 1,
          window: '1m',
          store: new MemoryStore(),
          onLimited: async () => {
            await logSink.write('limited')
          },
          onError: log.onError,
        },
      }),
    )
    expect(await statusesOf(a, 3)).toEqual([200, 429, 429])
    await settled()
    expect(log.codes()).toEqual(['ERR_FLOODGATE_FUNCTION_FAILED', 'ERR_FLOODGATE_FUNCTION_FAILED'])
    expect((log.errors[0] as { option?: string }).option).toBe('onLimited')
    expect(unhandled).toEqual([])
  })

  it("a sleep that rejects: the shaped request goes on at once, reported, not taken for the store's failure", async () => {
    const log = errorLog()
    const a = open(
      await driver.createApp({
        options: {
          store: new MemoryStore(),
          algorithm: leakyBucket({ capacity: 5, leakRate: 1, interval: '1s', mode: 'shape' }),
          sleep: async () => {
            throw new Error('timer service is down')
          },
          onError: log.onError,
        },
      }),
    )
    // The first passes at once; the second is shaped (it would wait), and its sleep fails.
    const [first, second] = [await a.request({ path: '/' }), await a.request({ path: '/' })]
    expect([first.status, second.status]).toEqual([200, 200])
    expect(second.headers['ratelimit-remaining']).toBeDefined()
    await settled()
    expect(log.codes()).toEqual(['ERR_FLOODGATE_FUNCTION_FAILED'])
    expect((log.errors[0] as { option?: string }).option).toBe('sleep')
    expect(unhandled).toEqual([])
  })

  it('a metrics sink whose instruments reject: every request is answered', async () => {
    const rejecting = () => Promise.reject(new Error('statsd is down'))
    const sink = {
      counter: () => ({ add: rejecting }),
      histogram: () => ({ record: rejecting }),
      gauge: () => () => undefined,
    }
    const a = open(
      await driver.createApp({
        options: {
          algorithm: fixedWindow({ limit: 1, window: '1m' }),
          store: new MemoryStore(),
          metrics: sink,
        },
      }),
    )
    expect(await statusesOf(a, 2)).toEqual([200, 429])
    await settled()
    expect(unhandled).toEqual([])
  })

  it.each([
    ['priorityQueue', { concurrency: 4, queues: { premium: { capacity: 4 }, standard: { capacity: 4 } } }],
    ['loadShedder', { maxInFlight: 4 }],
  ] as const)(
    '%s: an async onError that rejects, told of a failing priority: served',
    async (gate, options) => {
      const a = open(
        await driver.createApp({
          degradation: {
            [gate]: {
              ...options,
              priority: () => {
                throw new Error('plan lookup failed')
              },
              onError: async (error: unknown) => {
                await logSink.write(error)
              },
            },
          },
        }),
      )
      expect(await statusesOf(a, 2)).toEqual([200, 200])
      await settled()
      expect(unhandled).toEqual([])
    },
  )
})

describe.each(drivers)('loadShedder on $name, with an overload signal of its own that fails', (driver) => {
  const open = openApps()

  it.each([
    [
      'throws',
      (): number => {
        throw new Error('probe broke')
      },
    ],
    ['answers a promise', async (): Promise<number> => 5_000],
  ] as const)(
    'a signal whose delayMs %s sheds nothing on its account; the server goes on',
    async (_how, delayMs) => {
      const a = open(
        await driver.createApp({
          degradation: { loadShedder: { maxEventLoopDelay: 100, overload: { delayMs, close: () => {} } } },
        }),
      )
      expect(await statusesOf(a, 3)).toEqual([200, 200, 200])
      await settled()
      expect(unhandled).toEqual([])
    },
  )
})

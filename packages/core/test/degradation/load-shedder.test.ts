// loadShedder in core: shares of maxInFlight kept for the classes above, the event-loop signal shedding one
// more class per step (driven by an injected signal and clock, no sleeps), its smoothing, and the real
// perf_hooks measurement.
import { describe, expect, it } from 'vitest'
import type { DelayHistogram } from '../../src/degradation/load-shedder/event-loop-delay.js'
import type { RequestInfo } from '../../src/index.js'
import { eventLoopDelaySignal, RateLimitConfigError } from '../../src/index.js'
import type { GateOutcome, LoadShedderOptions } from '../../src/internal.js'
import { createLoadShedder } from '../../src/internal.js'
import { virtualTime } from './virtual-time.js'

type Req = { class?: string }
const info = (cls?: string): RequestInfo<Req> => ({
  ip: '203.0.113.1',
  method: 'GET',
  route: '/',
  path: '/',
  headers: {},
  native: { class: cls },
})

function setup(over: Partial<LoadShedderOptions<Req>> = {}) {
  const t = virtualTime()
  let delay = 0
  const errors: unknown[] = []
  const shedder = createLoadShedder<Req>({
    priority: (req) => req.class as string,
    clock: t.clock,
    overload: { delayMs: () => delay, close() {} },
    onError: (e) => errors.push(e),
    ...over,
  })
  const enter = (cls?: string) => {
    const entry = shedder.enter(info(cls))
    return { ...entry, now: entry.outcome as GateOutcome }
  }
  return { shedder, enter, errors, advance: t.advance, setDelay: (ms: number) => (delay = ms) }
}

const statusOf = (o: GateOutcome) => (o.kind === 'answer' ? o.status : o.kind)

describe('loadShedder (core)', () => {
  it('keeps the reserve for critical requests: the others are shed at 80% of maxInFlight, critical at 100%', () => {
    const { enter, shedder } = setup({ maxInFlight: 10, reserve: { critical: 0.2 } })
    const normal = Array.from({ length: 9 }, () => enter('normal'))
    expect(normal.map((e) => statusOf(e.now))).toEqual([...Array(8).fill('pass'), 503])
    expect(statusOf(enter('sheddable').now)).toBe(503)
    const critical = Array.from({ length: 3 }, () => enter('critical'))
    expect(critical.map((e) => statusOf(e.now))).toEqual(['pass', 'pass', 503])
    expect(shedder.stats().inFlight).toBe(10)
    normal[0]!.leave()
    normal[0]!.leave() // twice gives back one place
    normal[8]!.leave() // was shed: holds nothing
    expect(shedder.stats().inFlight).toBe(9)
    expect(statusOf(enter('critical').now)).toBe('pass')
    expect(statusOf(enter('normal').now)).toBe(503)
  })

  it('sheds the lowest class first: a reserve per class', () => {
    const { enter } = setup({ maxInFlight: 10, reserve: { critical: 0.2, normal: 0.1 } })
    const results: Record<string, number> = { critical: 0, normal: 0, sheddable: 0 }
    for (const cls of ['sheddable', 'normal', 'critical']) {
      for (let i = 0; i < 20; i++) if (enter(cls).now.kind === 'pass') results[cls]!++
    }
    // Sheddable up to 7 in flight, normal up to 8, critical up to 10.
    expect(results).toEqual({ sheddable: 7, normal: 1, critical: 2 })
  })

  it('a shed request is a 503 with Retry-After from the measured time requests hold their place', () => {
    const { enter, advance } = setup({ maxInFlight: 1, format: 'problem+json' })
    const first = enter('normal')
    advance(2500)
    first.leave()
    enter('normal')
    const shed = enter('normal').now
    expect(shed).toMatchObject({ kind: 'answer', status: 503, reason: 'shed', retryAfterMs: 2500 })
    const answer = shed as Extract<GateOutcome, { kind: 'answer' }>
    expect(answer.headers).toEqual({ 'retry-after': '3', 'cache-control': 'no-store' })
    expect(answer.contentType).toBe('application/problem+json')
    expect(JSON.parse(answer.body)).toEqual({
      type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
      title: 'Temporary Reduced Capacity',
      status: 503,
      detail: 'The server is overloaded and is shedding normal requests, retry in 3 seconds.',
      retryAfter: 3,
      priority: 'normal',
    })
  })

  it('event-loop delay above the bound sheds one more class per step, lowest first; recovery reverses it', () => {
    const { enter, advance, setDelay, shedder } = setup({ maxEventLoopDelay: '100ms', step: '1s' })
    const pass = () => ['critical', 'normal', 'sheddable'].map((c) => statusOf(enter(c).now))
    expect(pass()).toEqual(['pass', 'pass', 'pass'])
    setDelay(150)
    expect(pass()).toEqual(['pass', 'pass', 503])
    advance(999)
    expect(pass()).toEqual(['pass', 'pass', 503]) // one step per second at most
    advance(1)
    expect(pass()).toEqual(['pass', 503, 503])
    expect((enter('normal').now as { retryAfterMs: number }).retryAfterMs).toBe(1000)
    expect((enter('sheddable').now as { retryAfterMs: number }).retryAfterMs).toBe(2000)
    advance(1000)
    expect(pass()).toEqual([503, 503, 503]) // critical last
    setDelay(70) // between half the bound and the bound: hold
    advance(5000)
    expect(pass()).toEqual([503, 503, 503])
    setDelay(40)
    advance(1000)
    expect(pass()).toEqual(['pass', 503, 503])
    advance(1000)
    expect(pass()).toEqual(['pass', 'pass', 503])
    advance(10_000) // a quiet spell lets every class back at once
    expect(pass()).toEqual(['pass', 'pass', 'pass'])
    expect(shedder.stats()).toMatchObject({ delayMs: 40, shedClasses: 0 })
  })

  it('both bounds at once: either one sheds', () => {
    const { enter, setDelay } = setup({ maxInFlight: 2, maxEventLoopDelay: '50ms' })
    setDelay(60)
    expect(statusOf(enter('sheddable').now)).toBe(503)
    expect(statusOf(enter('normal').now)).toBe('pass')
    expect(statusOf(enter('critical').now)).toBe('pass')
    expect(statusOf(enter('critical').now)).toBe(503)
  })

  it('a priority function that fails, or names no class, puts the request in the last class, reported', async () => {
    const { enter, errors } = setup({
      maxInFlight: 10,
      reserve: { critical: 0.5 },
      priority: (req) => {
        if (req.class === 'boom') throw new Error('no class')
        return req.class === 'later' ? Promise.resolve('critical') : (req.class as string)
      },
    })
    expect(enter('boom').now).toMatchObject({ kind: 'pass', priority: 'sheddable' })
    expect(enter('gold').now).toMatchObject({ kind: 'pass', priority: 'sheddable' })
    expect(await enter('later').outcome).toMatchObject({ kind: 'pass', priority: 'critical' })
    expect(errors.map((e) => (e as { code: string }).code)).toEqual([
      'ERR_FLOODGATE_FUNCTION_FAILED',
      'ERR_FLOODGATE_UNKNOWN_PRIORITY',
    ])
  })

  it('a client gone before its class is known takes no place', async () => {
    let resolve!: (c: string) => void
    const { shedder } = setup({ maxInFlight: 1, priority: () => new Promise<string>((r) => (resolve = r)) })
    const entry = shedder.enter(info())
    entry.leave()
    resolve('critical')
    expect(await entry.outcome).toEqual({ kind: 'gone', priority: 'critical' })
    expect(shedder.stats().inFlight).toBe(0)
  })

  it('validates its options at creation', () => {
    const bad: [Record<string, unknown>, string, string][] = [
      [{}, 'loadShedder.maxInFlight', 'ERR_FLOODGATE_INVALID_OPTION'],
      [{ maxInFlight: 0 }, 'loadShedder.maxInFlight', 'ERR_FLOODGATE_INVALID_OPTION'],
      [{ maxEventLoopDelay: 'soon' }, 'loadShedder.maxEventLoopDelay', 'ERR_FLOODGATE_INVALID_DURATION'],
      [
        { maxInFlight: 5, reserve: { gold: 0.2 } },
        'loadShedder.reserve.gold',
        'ERR_FLOODGATE_INVALID_OPTION',
      ],
      [
        { maxInFlight: 5, reserve: { sheddable: 0.2 } },
        'loadShedder.reserve.sheddable',
        'ERR_FLOODGATE_INVALID_OPTION',
      ],
      [
        { maxInFlight: 5, reserve: { critical: 0.6, normal: 0.4 } },
        'loadShedder.reserve',
        'ERR_FLOODGATE_INVALID_OPTION',
      ],
      [
        { maxInFlight: 5, reserve: { critical: 1 } },
        'loadShedder.reserve.critical',
        'ERR_FLOODGATE_INVALID_OPTION',
      ],
      [
        { maxEventLoopDelay: '100ms', reserve: { critical: 0.2 } },
        'loadShedder.reserve',
        'ERR_FLOODGATE_INVALID_OPTION',
      ],
      [{ maxInFlight: 5, classes: [] }, 'loadShedder.classes', 'ERR_FLOODGATE_INVALID_OPTION'],
      [{ maxInFlight: 5, classes: ['a', 'a'] }, 'loadShedder.classes', 'ERR_FLOODGATE_INVALID_OPTION'],
      [{ maxInFlight: 5, overload: () => 5 }, 'loadShedder.overload', 'ERR_FLOODGATE_INVALID_OPTION'],
      [{ maxInFlight: 5, shed: true }, 'loadShedder.shed', 'ERR_FLOODGATE_UNKNOWN_OPTION'],
    ]
    for (const [options, option, code] of bad) {
      let error: unknown
      try {
        createLoadShedder(options as LoadShedderOptions)
      } catch (e) {
        error = e
      }
      expect(error, option).toBeInstanceOf(RateLimitConfigError)
      expect(error, option).toMatchObject({ option, code })
    }
  })
})

describe('eventLoopDelaySignal', () => {
  it('smooths the mean delay of each interval: smoothed += smoothing x (reading - smoothed)', () => {
    const t = virtualTime()
    let meanNs = Number.NaN
    let resets = 0
    const histogram: DelayHistogram = {
      enable: () => true,
      disable: () => true,
      reset: () => void resets++,
      get mean() {
        return meanNs
      },
      max: 0,
    }
    const signal = eventLoopDelaySignal({ sampleEveryMs: 100, smoothing: 0.5, histogram, timers: t.timers })
    t.advance(100) // no sample yet (NaN): unchanged
    expect(signal.delayMs()).toBe(0)
    meanNs = 80e6
    t.advance(100)
    expect(signal.delayMs()).toBe(40)
    t.advance(100)
    expect(signal.delayMs()).toBe(60)
    meanNs = 0
    t.advance(200)
    expect(signal.delayMs()).toBe(15)
    expect(resets).toBe(5)
    signal.close()
    expect(t.timers.pending).toBe(0)
  })

  it('measures the real event loop with perf_hooks: a blocked loop reads as delay', async () => {
    const t = virtualTime()
    const signal = eventLoopDelaySignal({ sampleEveryMs: 100, smoothing: 1, timers: t.timers })
    try {
      // Block the loop 40 ms at a time, letting it turn in between so the histogram's own timer records how
      // late it fired: about 30 ms each time once its 10 ms resolution is taken off.
      for (let i = 0; i < 5; i++) {
        const until = performance.now() + 40
        while (performance.now() < until) {
          // the event loop is blocked: nothing else runs
        }
        await new Promise((r) => setTimeout(r, 0))
      }
      t.advance(100)
      expect(signal.delayMs()).toBeGreaterThan(15)
    } finally {
      signal.close()
    }
  })
})

// What the priority queue and the load shedder report, seen by a recording sink, on a virtual clock with
// virtual timers (no sleeps): queue depth (read when collected), wait times, refusals; requests shed by class
// and cause.
import type { RequestInfo } from '@floodgate/core'
import { createLoadShedder, createPriorityQueue, type GateOutcome } from '@floodgate/core/internal'
import { recordingSink } from '@floodgate/test-harness'
import { virtualClock, virtualTimers } from '@floodgate/testing'
import { describe, expect, it } from 'vitest'

type Req = { plan?: string }
const info = (plan?: string): RequestInfo<Req> => ({
  ip: '203.0.113.1',
  method: 'GET',
  route: '/',
  path: '/',
  headers: {},
  native: { plan },
})
const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('priority queue metrics', () => {
  it('depth per queue when collected, each admitted wait in seconds, full and timeout refusals', async () => {
    const clock = virtualClock(1_000_000)
    const timers = virtualTimers(clock)
    const sink = recordingSink()
    const queue = createPriorityQueue<Req>({
      concurrency: 1,
      queues: { premium: { capacity: 2 }, standard: { capacity: 1 } },
      priority: (req) => req.plan as string,
      maxWait: '10s',
      clock: clock.now,
      timers,
      metrics: sink,
    })
    const depth = (queue: string) => sink.gaugeValue('floodgate.queue.depth', { queue })
    const first = queue.enter(info('premium')) // served at once
    const waiting = [queue.enter(info('premium')), queue.enter(info('standard'))]
    const full = queue.enter(info('standard'))
    expect(((await full.outcome) as GateOutcome).kind).toBe('answer')
    expect(depth('premium')).toBe(1)
    expect(depth('standard')).toBe(1)
    timers.advance(250)
    first.leave() // premium's waiter gets the place after 250 ms
    await settle()
    expect(depth('premium')).toBe(0)
    timers.advance(10_000) // standard's waiter times out
    await settle()
    expect(((await waiting[1]!.outcome) as GateOutcome).kind).toBe('answer')
    expect(sink.observations('floodgate.queue.wait', { queue: 'premium' })).toEqual([0, 0.25])
    expect(sink.observations('floodgate.queue.wait', { queue: 'standard' })).toEqual([])
    expect(sink.count('floodgate.queue.refusals', { queue: 'standard', reason: 'full' })).toBe(1)
    expect(sink.count('floodgate.queue.refusals', { queue: 'standard', reason: 'timeout' })).toBe(1)
    expect(sink.count('floodgate.queue.refusals', { queue: 'premium', reason: 'full' })).toBe(0)
    queue.close()
    expect(depth('premium')).toBeUndefined() // a closed queue is no longer read
  })
})

describe('load shedder metrics', () => {
  it('counts requests shed by class: in flight past the share, or by the event-loop delay', () => {
    const sink = recordingSink()
    let delayMs = 0
    let now = 0
    const shedder = createLoadShedder<Req>({
      priority: (req) => req.plan as string,
      classes: ['critical', 'normal'],
      maxInFlight: 2,
      reserve: { critical: 0.5 },
      maxEventLoopDelay: '100ms',
      step: '1s',
      overload: { delayMs: () => delayMs, close() {} },
      clock: () => now,
      metrics: sink,
    })
    const shed = (priority: string, cause: string) => sink.count('floodgate.shed', { priority, cause })
    shedder.enter(info('normal')) // in flight: 1 of normal's share of 1
    expect((shedder.enter(info('normal')).outcome as GateOutcome).kind).toBe('answer')
    expect((shedder.enter(info('critical')).outcome as GateOutcome).kind).toBe('pass')
    expect(shed('normal', 'in_flight')).toBe(1)
    expect(shed('critical', 'in_flight')).toBe(0)
    delayMs = 500
    now = 2000
    shedder.enter(info('normal')) // the delay reaches the last class
    now = 4000
    shedder.enter(info('normal'))
    expect(shed('normal', 'event_loop_delay')).toBeGreaterThanOrEqual(1)
    expect(shed('critical', 'event_loop_delay')).toBe(0)
    shedder.close()
  })
})

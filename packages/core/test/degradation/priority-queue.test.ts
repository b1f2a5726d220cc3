// priorityQueue in core: drain order, bounds, maxWait, clients that go away, the starvation guard, and the
// rules for a priority function that fails; on a virtual clock with virtual timers (no sleeps).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { GateEntry } from '../../src/degradation/gate.js'
import type { RequestInfo } from '../../src/index.js'
import { RateLimitConfigError } from '../../src/index.js'
import type { GateOutcome, PriorityQueueOptions } from '../../src/internal.js'
import { createPriorityQueue } from '../../src/internal.js'
import { virtualTime } from './virtual-time.js'

type Req = { plan?: string }
type Seen = { outcome?: GateOutcome; entered: number; settled?: number; sync: boolean }
const info = (plan?: string): RequestInfo<Req> => ({
  ip: '203.0.113.1',
  method: 'GET',
  route: '/',
  path: '/',
  headers: {},
  native: { plan },
})

function setup(over: Partial<PriorityQueueOptions<Req>> = {}) {
  const t = virtualTime()
  const errors: unknown[] = []
  const queue = createPriorityQueue<Req>({
    concurrency: 1,
    queues: { premium: { capacity: 3 }, standard: { capacity: 2 } },
    priority: (req) => req.plan as string,
    maxWait: '10s',
    clock: t.clock,
    timers: t.timers,
    onError: (e) => errors.push(e),
    ...over,
  })
  let seq = 0
  /** Enter a request and record what became of it, and when (one sequence for entries and outcomes). */
  const enter = (plan?: string) => {
    const entry = queue.enter(info(plan))
    const seen: Seen = { entered: seq++, sync: !(entry.outcome instanceof Promise) }
    Promise.resolve(entry.outcome).then((o) => {
      seen.outcome = o
      seen.settled = seq++
    })
    return Object.assign(entry, { seen }) as GateEntry & { seen: Seen }
  }
  return { queue, timers: Object.assign(t.timers, { advance: t.advance }), errors, enter }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

describe('priorityQueue (core)', () => {
  it('serves at once while a place is free, then drains premium first, standard only once premium is empty', async () => {
    const { enter, queue } = setup()
    const first = enter('standard')
    expect(first.outcome).toEqual({ kind: 'pass', headers: {}, priority: 'standard', waitedMs: 0 }) // synchronous
    const waiting = [enter('standard'), enter('premium'), enter('standard'), enter('premium')]
    expect(queue.stats()).toEqual({ inFlight: 1, queued: { premium: 2, standard: 2 } })
    const order: string[] = []
    let running = first
    for (let i = 0; i < 4; i++) {
      running.leave()
      await settle()
      const next = waiting.find(
        (w) => w.seen.outcome?.kind === 'pass' && !order.includes(String(waiting.indexOf(w))),
      )!
      order.push(String(waiting.indexOf(next)))
      running = next
    }
    expect(order.map((i) => waiting[Number(i)]!.seen.outcome?.priority)).toEqual([
      'premium',
      'premium',
      'standard',
      'standard',
    ])
    expect(order).toEqual(['1', '3', '0', '2']) // first in, first out within a queue
  })

  it('answers a full queue 429 at once, with Retry-After from the measured service time', async () => {
    const { enter, timers, queue } = setup({ concurrency: 2 })
    // Two requests that each hold their place 3 s: the service time is 3 s.
    const a = enter('premium')
    const b = enter('premium')
    timers.advance(3000)
    a.leave()
    b.leave()
    const running = [enter('premium'), enter('premium')]
    const queued = [enter('standard'), enter('standard'), enter('premium')]
    const full = enter('standard')
    expect(full.outcome).toMatchObject({
      kind: 'answer',
      status: 429,
      reason: 'queue_full',
      priority: 'standard',
    })
    const o = full.outcome as Extract<GateOutcome, { kind: 'answer' }>
    // One premium ahead of the standard queue's first request, plus that one: 2 x 3 s / 2 places = 3 s.
    expect(o.retryAfterMs).toBe(3000)
    expect(o.headers).toEqual({ 'retry-after': '3', 'cache-control': 'no-store' })
    expect(JSON.parse(o.body)).toEqual({
      error: 'queue_full',
      message: 'The standard queue is full, retry in 3 seconds.',
      retryAfter: 3,
      priority: 'standard',
    })
    expect(queue.stats()).toEqual({ inFlight: 2, queued: { premium: 1, standard: 2 } })
    void running
    void queued
  })

  it('answers 503 with Retry-After when a request waited maxWait, and not a moment before', async () => {
    const { enter, timers, queue } = setup({
      queues: { premium: { capacity: 3, maxWait: '30s' }, standard: { capacity: 2 } },
    })
    enter('standard')
    const standard = enter('standard')
    const premium = enter('premium')
    timers.advance(9_999)
    await settle()
    expect(standard.seen.outcome).toBeUndefined()
    timers.advance(1)
    await settle()
    expect(standard.seen.outcome).toMatchObject({ kind: 'answer', status: 503, reason: 'queue_timeout' })
    expect(JSON.parse((standard.seen.outcome as { body: string }).body).message).toBe(
      'Waited 10 seconds in the standard queue without being served, retry in 1 second.',
    )
    expect(premium.seen.outcome).toBeUndefined() // its own maxWait: 30 s
    timers.advance(20_000)
    await settle()
    expect(premium.seen.outcome).toMatchObject({ status: 503, priority: 'premium' })
    expect(queue.stats().queued).toEqual({ premium: 0, standard: 0 })
    expect(timers.pending).toBe(0)
  })

  it('a client that goes away leaves the queue at once: its place is free, and it is never let in', async () => {
    const { enter, queue } = setup({ queues: { only: { capacity: 1 } }, priority: undefined })
    const running = enter()
    const leaver = enter()
    expect(enter().outcome).toMatchObject({ status: 429 })
    leaver.leave()
    await settle()
    expect(leaver.seen.outcome).toEqual({ kind: 'gone', priority: 'only' })
    const next = enter()
    expect(queue.stats()).toEqual({ inFlight: 1, queued: { only: 1 } })
    running.leave()
    await settle()
    expect(next.seen.outcome?.kind).toBe('pass')
    leaver.leave() // twice is harmless
    next.leave()
    next.leave()
    expect(queue.stats()).toEqual({ inFlight: 0, queued: { only: 0 } })
  })

  it('a client that goes away while its priority is looked up never takes a place', async () => {
    let resolve!: (plan: string) => void
    const { enter, queue } = setup({ priority: () => new Promise<string>((r) => (resolve = r)) })
    const entry = enter()
    entry.leave()
    resolve('premium')
    await settle()
    expect(entry.seen.outcome).toEqual({ kind: 'gone', priority: 'premium' })
    expect(queue.stats().inFlight).toBe(0)
  })

  it('a priority function that throws, rejects or names no queue gives the lowest priority, reported', async () => {
    const plans: Record<string, () => unknown> = {
      throws: () => {
        throw new Error('no plan')
      },
      rejects: () => Promise.reject(new Error('db down')),
      unknown: () => 'gold',
      nothing: () => undefined,
    }
    const { enter, errors } = setup({
      concurrency: 4,
      priority: (req) => plans[req.plan!]!() as string,
    })
    for (const plan of Object.keys(plans)) {
      const entry = enter(plan)
      expect(await entry.outcome).toMatchObject({ kind: 'pass', priority: 'standard' })
    }
    expect(errors.map((e) => (e as { code: string }).code)).toEqual([
      'ERR_FLOODGATE_FUNCTION_FAILED',
      'ERR_FLOODGATE_FUNCTION_FAILED',
      'ERR_FLOODGATE_UNKNOWN_PRIORITY',
      'ERR_FLOODGATE_UNKNOWN_PRIORITY',
    ])
    expect((errors[2] as Error).message).toContain("expected one of 'premium', 'standard'")
  })

  it('promoteAfter: a request that waited that long goes before newer premium ones', async () => {
    const { enter, timers } = setup({
      promoteAfter: '2s',
      queues: { premium: { capacity: 10 }, standard: { capacity: 10 } },
    })
    let running = enter('premium')
    const standard = enter('standard')
    timers.advance(1000)
    const early = enter('premium')
    running.leave() // standard has waited 1 s: strict priority still
    await settle()
    expect(early.seen.outcome?.kind).toBe('pass')
    expect(standard.seen.outcome).toBeUndefined()
    running = early
    const late = enter('premium')
    timers.advance(1000) // standard has now waited 2 s
    running.leave()
    await settle()
    expect(standard.seen.outcome).toMatchObject({ kind: 'pass', priority: 'standard', waitedMs: 2000 })
    expect(late.seen.outcome).toBeUndefined()
  })

  it('problem+json: the RateLimit draft problem type for a 503, about:blank for a 429', async () => {
    const { enter, timers } = setup({
      format: 'problem+json',
      queues: { only: { capacity: 1 } },
      priority: undefined,
    })
    enter()
    const waiting = enter()
    const full = enter()
    expect(full.outcome).toMatchObject({ contentType: 'application/problem+json', status: 429 })
    expect(JSON.parse((full.outcome as { body: string }).body)).toMatchObject({
      type: 'about:blank',
      status: 429,
    })
    timers.advance(10_000)
    await settle()
    expect(JSON.parse((waiting.seen.outcome as { body: string }).body)).toMatchObject({
      type: 'https://iana.org/assignments/http-problem-types#temporary-reduced-capacity',
      title: 'Temporary Reduced Capacity',
      status: 503,
      retryAfter: 1,
      priority: 'only',
    })
  })

  it('close answers every waiting request 503 and stops the timers', async () => {
    const { enter, queue, timers } = setup()
    enter('premium')
    const waiting = [enter('premium'), enter('standard')]
    queue.close()
    await settle()
    expect(waiting.map((w) => (w.seen.outcome as { status?: number }).status)).toEqual([503, 503])
    expect(timers.pending).toBe(0)
  })

  it('validates its options at creation', () => {
    const base = { concurrency: 2, queues: { a: { capacity: 1 } } }
    const bad: [Record<string, unknown>, string, string][] = [
      [{ ...base, concurrency: 0 }, 'priorityQueue.concurrency', 'ERR_FLOODGATE_INVALID_OPTION'],
      [{ ...base, queues: {} }, 'priorityQueue.queues', 'ERR_FLOODGATE_INVALID_OPTION'],
      [
        { ...base, queues: { a: { capacity: -1 } } },
        'priorityQueue.queues.a.capacity',
        'ERR_FLOODGATE_INVALID_OPTION',
      ],
      [
        { ...base, queues: { a: { capacity: 1, size: 2 } } },
        'priorityQueue.queues.a.size',
        'ERR_FLOODGATE_UNKNOWN_OPTION',
      ],
      [{ ...base, maxWait: '10 minutes' }, 'priorityQueue.maxWait', 'ERR_FLOODGATE_INVALID_DURATION'],
      [
        { ...base, queues: { a: { capacity: 1 }, b: { capacity: 1 } } },
        'priorityQueue.priority',
        'ERR_FLOODGATE_INVALID_OPTION',
      ],
      [{ ...base, priority: 'plan' }, 'priorityQueue.priority', 'ERR_FLOODGATE_INVALID_OPTION'],
      [{ ...base, concurrency: 2, limit: 5 }, 'priorityQueue.limit', 'ERR_FLOODGATE_UNKNOWN_OPTION'],
    ]
    for (const [options, option, code] of bad) {
      let error: unknown
      try {
        createPriorityQueue(options as unknown as PriorityQueueOptions)
      } catch (e) {
        error = e
      }
      expect(error, option).toBeInstanceOf(RateLimitConfigError)
      expect(error, option).toMatchObject({ option, code })
    }
  })

  it('property: never more than concurrency served, never more queued than capacity, places never idle while requests wait, premium always first', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 4 }),
        fc.array(
          fc.oneof(
            fc.record({
              op: fc.constant('enter' as const),
              plan: fc.constantFrom('premium', 'standard', 'other'),
            }),
            fc.record({ op: fc.constant('leave' as const), pick: fc.nat() }),
            fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 6000 }) }),
          ),
          { maxLength: 60 },
        ),
        async (concurrency, ops) => {
          const { enter, queue, timers } = setup({ concurrency, maxWait: '10s' })
          const entries: ReturnType<typeof enter>[] = []
          let served = 0
          for (const step of ops) {
            if (step.op === 'enter') {
              const e = enter(step.plan)
              Object.assign(e.seen, { plan: step.plan })
              entries.push(e)
            } else if (step.op === 'leave' && entries.length > 0) entries[step.pick % entries.length]!.leave()
            else if (step.op === 'wait') timers.advance(step.ms)
            await settle()
            const { inFlight, queued } = queue.stats()
            const passing = entries.filter((e) => e.seen.outcome?.kind === 'pass')
            served = Math.max(served, passing.length)
            expect(inFlight).toBeLessThanOrEqual(concurrency)
            expect(queued.premium).toBeLessThanOrEqual(3)
            expect(queued.standard).toBeLessThanOrEqual(2)
            if (inFlight < concurrency) expect(queued.premium! + queued.standard!).toBe(0)
            // A standard request is never let in from its queue while a premium one that came earlier waits.
            const waitingPremium = entries.filter((e) => e.seen.outcome === undefined && e.seen.entered >= 0)
            for (const s of passing) {
              if (s.seen.sync || s.seen.outcome?.priority !== 'standard') continue
              for (const p of waitingPremium) {
                if ((p.seen as Seen & { plan?: string }).plan !== 'premium') continue
                expect(
                  p.seen.entered > s.seen.settled!,
                  'a premium request waited while a standard one was let in',
                ).toBe(true)
              }
            }
          }
          expect(served).toBeGreaterThanOrEqual(Math.min(1, entries.length))
        },
      ),
      { numRuns: 150 },
    )
  })
})

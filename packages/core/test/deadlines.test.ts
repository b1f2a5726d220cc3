import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import {
  CallFailure,
  createStoreMetrics,
  Deadlines,
  type Pending,
  type Settled,
  settle,
} from '../src/internal.js'

const TIMEOUT = new CallFailure(new Error('timed out'), true, true)

/** Calls started on one queue, each recording what it settled with. */
function calls(ms: number) {
  const deadlines = new Deadlines(ms, () => TIMEOUT)
  const answers = new Map<string, Settled[]>()
  const start = (name: string): Pending => {
    answers.set(name, [])
    return deadlines.start((settled) => answers.get(name)!.push(settled))
  }
  return { deadlines, answers, start }
}

/** The calls still waiting, oldest first (walked through the list links). */
function waiting(first: Pending | undefined): Pending[] {
  const out: Pending[] = []
  for (let p = first; p !== undefined; p = p.next) out.push(p)
  return out
}

describe('Deadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] })
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('settles a call with its answer once, and the deadline after it changes nothing', () => {
    const { answers, start } = calls(500)
    const a = start('a')
    settle(a, 'reply')
    settle(a, 'late reply')
    vi.advanceTimersByTime(1_000)
    expect(answers.get('a')).toEqual(['reply'])
  })

  it('settles a call that gets no answer with the timeout, at its deadline and not before', () => {
    const { answers, start } = calls(500)
    const a = start('a')
    vi.advanceTimersByTime(499)
    expect(answers.get('a')).toEqual([])
    vi.advanceTimersByTime(1)
    expect(answers.get('a')).toEqual([TIMEOUT])
    settle(a, 'reply after the deadline')
    expect(answers.get('a')).toEqual([TIMEOUT])
  })

  it('keeps only the calls still in flight: a settled call leaves the list at once, wherever it is', () => {
    const { start } = calls(500)
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(start) as [Pending, Pending, Pending, Pending]
    settle(b, 1) // the middle
    expect(waiting(a)).toEqual([a, c, d])
    settle(a, 1) // the oldest
    expect(waiting(c)).toEqual([c, d])
    expect(c.previous).toBeUndefined()
    settle(d, 1) // the newest
    expect(waiting(c)).toEqual([c])
    expect(c.next).toBeUndefined()
    for (const p of [a, b, d]) {
      expect(p.queue).toBeUndefined()
      expect(p.previous).toBeUndefined()
      expect(p.next).toBeUndefined()
    }
  })

  it('drops its hold on the answer callback once settled, so a settled call keeps nothing alive', () => {
    const { start } = calls(500)
    const a = start('a')
    const resolve = a.resolve
    settle(a, 'reply')
    expect(a.resolve).not.toBe(resolve)
  })

  it('times calls out in the order they were made, each at its own deadline', () => {
    const { answers, start } = calls(100)
    start('a')
    vi.advanceTimersByTime(30)
    const b = start('b')
    vi.advanceTimersByTime(30)
    start('c')
    settle(b, 'reply')
    vi.advanceTimersByTime(40) // a's deadline (100)
    expect([...answers.values()]).toEqual([[TIMEOUT], ['reply'], []])
    vi.advanceTimersByTime(59) // c's deadline is at 160
    expect(answers.get('c')).toEqual([])
    vi.advanceTimersByTime(1)
    expect(answers.get('c')).toEqual([TIMEOUT])
  })

  it('has no timer while nothing waits, and starts one again for the next call', () => {
    const { answers, start } = calls(100)
    settle(start('a'), 'reply')
    vi.advanceTimersByTime(100) // the timer wakes once, finds nothing, and stops
    expect(vi.getTimerCount()).toBe(0)
    start('b')
    expect(vi.getTimerCount()).toBe(1)
    vi.advanceTimersByTime(100)
    expect(answers.get('b')).toEqual([TIMEOUT])
    expect(vi.getTimerCount()).toBe(0)
  })
  it('records the duration of a timed call once, in seconds, when it settles: by its answer or by its deadline', () => {
    const deadlines = new Deadlines(500, () => TIMEOUT)
    const recorded: number[] = []
    const histogram = { record: (seconds: number) => recorded.push(seconds) }
    const answered = deadlines.start(() => {}, histogram)
    const timedOut = deadlines.start(() => {}, histogram)
    deadlines.start(() => {}) // not timed: nothing recorded for it
    vi.advanceTimersByTime(120)
    settle(answered, 'reply')
    settle(answered, 'late reply')
    expect(recorded).toEqual([0.12])
    vi.advanceTimersByTime(380) // the other two reach their deadline
    settle(timedOut, 'reply after the deadline')
    expect(recorded).toEqual([0.12, 0.5])
  })

  it("a sink's histogram that throws fails no call: the answer still arrives", () => {
    const deadlines = new Deadlines(500, () => TIMEOUT)
    const answers: Settled[] = []
    const sink = {
      counter: () => ({ add: () => {} }),
      gauge: () => () => {},
      histogram: () => ({
        record: () => {
          throw new Error('sink down')
        },
      }),
    }
    const metrics = createStoreMetrics({ sink, store: 'test', operations: ['consume'] })
    const throwing = metrics!.histogramOf('consume')!
    settle(
      deadlines.start((settled) => answers.push(settled), throwing),
      'reply',
    )
    const late = deadlines.start((settled) => answers.push(settled), throwing)
    vi.advanceTimersByTime(500)
    expect(answers).toEqual(['reply', TIMEOUT])
    expect(late.queue).toBeUndefined()
  })
})

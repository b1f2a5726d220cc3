import { serviceTime } from '../service-time.js'
import type { Timers } from '../timers.js'

/** One queue: its capacity and how long a request may wait in it. */
export interface Lane {
  readonly name: string
  readonly capacity: number
  readonly maxWaitMs: number
}

/** What became of a request that asked for a place. */
export type Admission =
  | { readonly kind: 'admitted'; readonly waitedMs: number }
  | { readonly kind: 'full'; readonly retryAfterMs: number }
  | { readonly kind: 'timeout'; readonly retryAfterMs: number; readonly waitedMs: number }
  | { readonly kind: 'left' }

/** One request's claim on the scheduler. */
export interface Ticket {
  /** Synchronous when the request is let in at once or refused at once. */
  readonly admission: Admission | Promise<Admission>
  /** Leave the queue (still waiting) or give the place back (let in). Idempotent. */
  leave(): void
}

export interface Scheduler {
  enter(lane: number): Ticket
  /** Requests let in and not yet finished, and requests waiting in each lane. */
  stats(): { inFlight: number; queued: number[] }
  /** Answer every waiting request 503 and stop the timers. */
  close(): void
}

interface Waiter {
  readonly lane: number
  readonly at: number
  readonly deadline: number
  state: 'queued' | 'running' | 'done'
  startedAt: number
  prev: Waiter | undefined
  next: Waiter | undefined
  settle: (admission: Admission) => void
}

/** A lane's waiters, oldest first (a linked list: a request that goes away leaves in O(1)). */
interface Line {
  head: Waiter | undefined
  tail: Waiter | undefined
  size: number
  timer: unknown
  timerAt: number
}

const ADMITTED_AT_ONCE: Admission = Object.freeze({ kind: 'admitted', waitedMs: 0 })
const LEFT: Admission = Object.freeze({ kind: 'left' })
const NOOP_TICKET = (admission: Admission): Ticket => ({ admission, leave() {} })

/**
 * A bounded set of places (`concurrency`) in front of lanes of waiting requests, drained in lane order:
 * lane 0 first, lane 1 only when lane 0 is empty, and so on (strict priority). With `promoteAfterMs`, the
 * oldest waiting request is served first, whatever its lane, once it has waited that long (the guard
 * against starvation). Each lane is first-in first-out and holds at most its capacity; a request that waits
 * its lane's `maxWaitMs` is answered `timeout`. Never more than `concurrency` requests are let in at once.
 *
 * Time comes from `clock`, deadlines from `timers` (one timer per lane, for its oldest request), so tests run
 * it on a virtual clock. Retry estimates come from the measured time requests hold a place.
 */
export function createScheduler(options: {
  concurrency: number
  lanes: readonly Lane[]
  promoteAfterMs: number | undefined
  clock: () => number
  timers: Timers
}): Scheduler {
  const { concurrency, lanes, promoteAfterMs, clock, timers } = options
  const lines: Line[] = lanes.map(() => ({
    head: undefined,
    tail: undefined,
    size: 0,
    timer: undefined,
    timerAt: Number.POSITIVE_INFINITY,
  }))
  const service = serviceTime()
  let inFlight = 0

  /** How long until `ahead` more requests have been served, from the measured service time. */
  const estimate = (ahead: number) => Math.ceil((ahead * service.meanMs) / concurrency)
  const queuedBefore = (lane: number) => {
    let n = 0
    for (let i = 0; i < lane; i++) n += lines[i]!.size
    return n
  }

  function unlink(w: Waiter): void {
    const line = lines[w.lane]!
    if (w.prev) w.prev.next = w.next
    else line.head = w.next
    if (w.next) w.next.prev = w.prev
    else line.tail = w.prev
    w.prev = w.next = undefined
    line.size--
  }

  /** Make sure a timer fires by the lane's oldest deadline (one that fires early just sets the next one). */
  function arm(lane: number): void {
    const line = lines[lane]!
    const due = line.head?.deadline ?? Number.POSITIVE_INFINITY
    if (due >= line.timerAt) return
    if (line.timer !== undefined) timers.clear(line.timer)
    line.timerAt = due
    line.timer = timers.set(
      () => {
        line.timer = undefined
        line.timerAt = Number.POSITIVE_INFINITY
        expire(lane)
      },
      Math.max(0, due - clock()),
    )
  }

  function expire(lane: number): void {
    const line = lines[lane]!
    const now = clock()
    while (line.head && line.head.deadline <= now) {
      const w = line.head
      unlink(w)
      w.state = 'done'
      const retryAfterMs = estimate(queuedBefore(lane) + line.size + 1)
      w.settle({ kind: 'timeout', retryAfterMs, waitedMs: now - w.at })
    }
    arm(lane)
  }

  function next(now: number): Waiter | undefined {
    if (promoteAfterMs !== undefined) {
      let oldest: Waiter | undefined
      for (const line of lines) if (line.head && (!oldest || line.head.at < oldest.at)) oldest = line.head
      if (oldest && now - oldest.at >= promoteAfterMs) return oldest
    }
    for (const line of lines) if (line.head) return line.head
    return undefined
  }

  function dispatch(): void {
    const now = clock()
    while (inFlight < concurrency) {
      const w = next(now)
      if (!w) return
      unlink(w)
      w.state = 'running'
      w.startedAt = now
      inFlight++
      w.settle({ kind: 'admitted', waitedMs: now - w.at })
    }
  }

  function leave(w: Waiter): void {
    if (w.state === 'queued') {
      unlink(w)
      w.state = 'done'
      w.settle(LEFT)
    } else if (w.state === 'running') {
      w.state = 'done'
      inFlight--
      service.record(clock() - w.startedAt)
      dispatch()
    }
  }

  return {
    enter(lane) {
      const now = clock()
      const spec = lanes[lane]!
      const line = lines[lane]!
      const w: Waiter = {
        lane,
        at: now,
        deadline: now + spec.maxWaitMs,
        state: 'running',
        startedAt: now,
        prev: undefined,
        next: undefined,
        settle: () => {},
      }
      // A free place means every lane is empty: places are handed to waiters as soon as they free up.
      if (inFlight < concurrency) {
        inFlight++
        return { admission: ADMITTED_AT_ONCE, leave: () => leave(w) }
      }
      if (line.size >= spec.capacity) {
        return NOOP_TICKET({ kind: 'full', retryAfterMs: estimate(queuedBefore(lane) + 1) })
      }
      w.state = 'queued'
      const admission = new Promise<Admission>((resolve) => {
        w.settle = resolve
      })
      w.prev = line.tail
      if (line.tail) line.tail.next = w
      else line.head = w
      line.tail = w
      line.size++
      arm(lane)
      return { admission, leave: () => leave(w) }
    },
    stats: () => ({ inFlight, queued: lines.map((l) => l.size) }),
    close() {
      for (let lane = 0; lane < lines.length; lane++) {
        const line = lines[lane]!
        if (line.timer !== undefined) timers.clear(line.timer)
        line.timer = undefined
        line.timerAt = Number.POSITIVE_INFINITY
        const now = clock()
        while (line.head) {
          const w = line.head
          unlink(w)
          w.state = 'done'
          w.settle({
            kind: 'timeout',
            retryAfterMs: estimate(queuedBefore(lane) + line.size + 1),
            waitedMs: now - w.at,
          })
        }
      }
    },
  }
}

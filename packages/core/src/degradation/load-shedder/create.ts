import { monotonicClock } from '../../clocks/monotonic-clock.js'
import { guardedCall, HookFailure, hookFailed } from '../../guarded-call.js'
import { NO_HEADERS } from '../../http/answer.js'
import { compileReport } from '../../http/report.js'
import type { RequestInfo } from '../../http/request-info.js'
import { createShedMetrics } from '../../metrics/gate-metrics.js'
import type { Awaitable } from '../../types.js'
import { parseOptions } from '../../validate.js'
import { answer } from '../answers.js'
import type { Gate, GateEntry, GateOutcome, PassOutcome } from '../gate.js'
import { compilePriority } from '../priority.js'
import { serviceTime } from '../service-time.js'
import { eventLoopDelaySignal, type OverloadSignal } from './event-loop-delay.js'
import type { LoadShedderOptions } from './options.js'
import { loadShedderSchema } from './schema.js'
import { shedLevel } from './shed-level.js'
import { inFlightBounds } from './thresholds.js'

const delayOf = (signal: OverloadSignal): unknown => signal.delayMs()
const overloadFailed = hookFailed('overload')

/**
 * The signal's delay, read through the guard: a signal of the app's that throws (or answers something other
 * than a number) reads as no delay, with a process warning once, and sheds nothing on its account.
 */
function readDelay(signal: OverloadSignal): number {
  const delay = guardedCall(delayOf, signal)
  if (typeof delay === 'number') return delay
  if (delay instanceof HookFailure) overloadFailed(delay.error)
  else overloadFailed(new TypeError(`delayMs() answered ${typeof delay}, not a number of ms`))
  return 0
}

/** A {@link Gate} with a look at its load. */
export interface LoadShedder<N = any> extends Gate<N> {
  /** Requests in flight, the smoothed event-loop delay, and how many classes the delay signal sheds. */
  stats(): { inFlight: number; delayMs: number; shedClasses: number }
}

/**
 * Create the framework-neutral load shedder the adapters' `loadShedder()` wrap. Options are validated now.
 *
 * A request is let in or answered 503 at once (it never waits): shed when its class's share of `maxInFlight`
 * is in use (`reserve` keeps shares for the classes above), or when the smoothed event-loop delay has stayed
 * above `maxEventLoopDelay` long enough to reach its class (the last class first, one more per `step`).
 *
 * @example
 * const shedder = createLoadShedder({ maxInFlight: 256, reserve: { critical: 0.2 }, priority })
 * const entry = shedder.enter(info); res.once('close', entry.leave)
 */
export function createLoadShedder<N = any>(options: LoadShedderOptions<N>): LoadShedder<N> {
  const o = parseOptions(loadShedderSchema, options, 'loadShedder')
  const classes = o.classes
  const report = compileReport<N>(o.onError as LoadShedderOptions<N>['onError'])
  const classOf = compilePriority<N>({
    priority: o.priority as LoadShedderOptions<N>['priority'],
    classes,
    report,
  })
  const clock = (o.clock as (() => number) | undefined) ?? monotonicClock
  const bounds = o.maxInFlight === undefined ? undefined : inFlightBounds(classes, o.maxInFlight, o.reserve)
  const signal: OverloadSignal | undefined =
    o.maxEventLoopDelay === undefined
      ? undefined
      : ((o.overload as OverloadSignal | undefined) ?? eventLoopDelaySignal())
  const level =
    o.maxEventLoopDelay === undefined
      ? undefined
      : shedLevel({ classes: classes.length, maxDelayMs: o.maxEventLoopDelay, stepMs: o.step })
  const service = serviceTime()
  const metrics = createShedMetrics({ sink: o.metrics, classes })
  const passes: PassOutcome[] = classes.map((priority) => ({
    kind: 'pass',
    headers: NO_HEADERS,
    priority,
    waitedMs: 0,
  }))
  let inFlight = 0

  function decide(index: number, gone: () => boolean, hold: (release: () => void) => void): GateOutcome {
    const priority = classes[index]!
    if (gone()) return { kind: 'gone', priority }
    const now = clock()
    if (level && signal) {
      level.update(readDelay(signal), now)
      const wait = level.retryMs(index)
      if (wait > 0) {
        metrics?.shed(index, 'event_loop_delay')
        return answer({ reason: 'shed', priority, retryAfterMs: wait, format: o.format })
      }
    }
    if (bounds && inFlight + 1 > bounds[index]!) {
      metrics?.shed(index, 'in_flight')
      return answer({ reason: 'shed', priority, retryAfterMs: service.meanMs, format: o.format })
    }
    inFlight++
    let held = true
    hold(() => {
      if (!held) return
      held = false
      inFlight--
      service.record(clock() - now)
    })
    return passes[index]!
  }

  return {
    enter(info: RequestInfo<N>): GateEntry {
      let left = false
      let release: (() => void) | undefined
      const gone = () => left
      const hold = (r: () => void) => {
        release = r
      }
      const index = classOf(info)
      const outcome: Awaitable<GateOutcome> =
        index instanceof Promise ? index.then((i) => decide(i, gone, hold)) : decide(index, gone, hold)
      return {
        outcome,
        leave() {
          left = true
          release?.()
        },
      }
    },
    stats: () => ({ inFlight, delayMs: signal?.delayMs() ?? 0, shedClasses: level?.current ?? 0 }),
    close() {
      signal?.close()
    },
  }
}

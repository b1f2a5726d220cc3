import { RateLimitConfigError } from '../../errors.js'
import { systemTimers, type Timers } from '../timers.js'

/**
 * What tells the load shedder the server is overloaded: the event loop's delay, already smoothed. Injectable:
 * tests pass their own and set the delay they want; `eventLoopDelaySignal()` measures the real one.
 */
export interface OverloadSignal {
  /** The event loop's delay now, in ms (smoothed as the signal sees fit). */
  delayMs(): number
  /** Stop measuring. */
  close(): void
}

/** The part of `perf_hooks`' `IntervalHistogram` the signal reads. */
export interface DelayHistogram {
  enable(): boolean
  disable(): boolean
  reset(): void
  /** Mean delay since the last reset, in ns (NaN before any sample). */
  readonly mean: number
  /** Largest delay since the last reset, in ns. */
  readonly max: number
}

/** Options of {@link eventLoopDelaySignal}. */
export interface EventLoopDelaySignalOptions {
  /**
   * How often the delay is read (and the histogram reset).
   * @default 100
   * @example 250
   */
  sampleEveryMs?: number
  /**
   * The weight of each new reading in the average, in (0, 1]: 1 follows the latest reading alone, 0.3 smooths
   * over about the last 3 readings (300 ms at the default sampling).
   * @default 0.3
   * @example 0.5
   */
  smoothing?: number
  /**
   * The histogram to read (one that reports the delay itself, without a resolution to take off).
   * @default perf_hooks.monitorEventLoopDelay({ resolution: 10 })
   * @example monitorEventLoopDelay({ resolution: 20 })
   */
  histogram?: DelayHistogram
  /**
   * The timer that samples; tests pass virtual ones.
   * @default setTimeout / clearTimeout, unref'd
   * @example virtualTimers(clock)
   */
  timers?: Timers
}

type PerfHooks = { monitorEventLoopDelay(options: { resolution: number }): DelayHistogram }

/** `perf_hooks.monitorEventLoopDelay`, loaded without a static import so that core still runs in a browser. */
/** The histogram's resolution, in ms: perf_hooks records each tick's whole interval, this much plus the delay. */
const RESOLUTION_MS = 10

function nodeHistogram(): DelayHistogram {
  const load = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process
    ?.getBuiltinModule
  const perf = load?.('node:perf_hooks') as PerfHooks | undefined
  if (!perf?.monitorEventLoopDelay) {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'loadShedder.maxEventLoopDelay',
      'maxEventLoopDelay',
      'used where node:perf_hooks is (Node.js 20.16 or later), or with an `overload` signal of your own',
    )
  }
  return perf.monitorEventLoopDelay({ resolution: RESOLUTION_MS })
}

/**
 * The event loop's delay, measured with `perf_hooks.monitorEventLoopDelay` (the time timers fire late, which
 * is what every request waits before its code runs) and smoothed: every `sampleEveryMs` the mean delay of
 * the last interval is read (less the histogram's 10 ms resolution, which perf_hooks counts in each reading;
 * an interval with no reading counts as none), the histogram reset, and an exponentially weighted moving average updated
 * (`smoothed += smoothing x (reading - smoothed)`). One busy interval moves it by `smoothing` of the way;
 * sustained load moves it all the way within a few intervals, and it falls back as fast once load is gone.
 *
 * @example const signal = eventLoopDelaySignal({ sampleEveryMs: 100, smoothing: 0.3 })
 */
export function eventLoopDelaySignal(options: EventLoopDelaySignalOptions = {}): OverloadSignal {
  const every = options.sampleEveryMs ?? 100
  const weight = options.smoothing ?? 0.3
  const timers = options.timers ?? systemTimers
  const histogram = options.histogram ?? nodeHistogram()
  // perf_hooks' own histogram counts its resolution in every reading; an injected one reports the delay.
  const offsetMs = options.histogram ? 0 : RESOLUTION_MS
  histogram.enable()
  let smoothed = 0
  let timer: unknown
  let closed = false
  const sample = () => {
    const mean = Math.max(0, histogram.mean / 1e6 - offsetMs)
    histogram.reset()
    if (Number.isFinite(mean)) smoothed += weight * (mean - smoothed)
    if (!closed) timer = timers.set(sample, every)
  }
  timer = timers.set(sample, every)
  return {
    delayMs: () => smoothed,
    close() {
      closed = true
      timers.clear(timer)
      histogram.disable()
    },
  }
}

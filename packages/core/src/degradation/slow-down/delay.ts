import { describeValue } from '../../errors.js'
import { callAppFunction, FunctionFailure } from '../../http/app-functions.js'
import type { Reporter } from '../../http/report.js'
import type { RequestInfo } from '../../http/request-info.js'
import type { Awaitable } from '../../types.js'
import { DegradationError, functionFailed } from '../errors.js'
import type { DelayFunction } from './options.js'

/**
 * Compile `delay` to the delay of request `count` (past `after`) in whole ms, capped by `maxDelayMs`. A delay
 * function that fails or returns what is not a number >= 0 delays nothing, reported once per request.
 */
export function compileDelay<N>(
  delay: number | DelayFunction<N>,
  after: number,
  maxDelayMs: number,
  report: Reporter<N>,
): (count: number, info: RequestInfo<N>) => Awaitable<number> {
  const capped = (ms: number) => Math.min(Math.ceil(ms), maxDelayMs)
  if (typeof delay === 'number') return (count) => capped((count - after) * delay)
  const settle = (value: unknown, info: RequestInfo<N>): number => {
    if (value instanceof FunctionFailure) {
      report(functionFailed('delay', value), info)
      return 0
    }
    if (typeof value === 'number' && value >= 0) return capped(value) // Infinity is maxDelay
    report(
      new DegradationError(
        'ERR_FLOODGATE_INVALID_DELAY',
        `The \`delay\` function returned ${describeValue(value)}; expected a number of ms >= 0. The request went on without a delay.`,
        { option: 'delay' },
      ),
      info,
    )
    return 0
  }
  return (count, info) => {
    const value = callAppFunction('delay', (req: N, i: RequestInfo<N>) => delay(count, req, i), info)
    return value instanceof Promise ? value.then((v) => settle(v, info)) : settle(value, info)
  }
}

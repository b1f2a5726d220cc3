import { callAppFunction, FunctionFailure } from './app-functions.js'
import type { RateLimitOptions } from './options/types.js'
import { type Outcome, SKIPPED } from './outcome.js'
import type { Reporter } from './report.js'
import type { RequestInfo } from './request-info.js'

/**
 * The first step of a request: the app's `skip`, then `next` unless it skipped. A `skip` that throws or rejects
 * skips nothing (the request is counted) and is reported. With no `skip`, the step is `next` itself. A request
 * whose `skip` answers at once allocates no closure (the callback is left to `skipLater`).
 */
export function compileSkip<N>(parts: {
  skip: RateLimitOptions<N>['skip']
  report: Reporter<N>
  next: (info: RequestInfo<N>) => Outcome | Promise<Outcome>
}): (info: RequestInfo<N>) => Outcome | Promise<Outcome> {
  const { skip, report, next } = parts
  if (skip === undefined) return next

  /** Whether `skip`'s answer skips the request. One that failed does not skip. */
  function skips(value: unknown, info: RequestInfo<N>): boolean {
    if (!(value instanceof FunctionFailure)) return value === true
    report(value.error, info)
    return false
  }

  function skipLater(skipped: Promise<unknown>, info: RequestInfo<N>): Promise<Outcome> {
    return skipped.then((yes) => (skips(yes, info) ? SKIPPED : next(info)))
  }

  return (info) => {
    const skipped = callAppFunction('skip', skip, info)
    if (skipped instanceof Promise) return skipLater(skipped, info)
    return skips(skipped, info) ? SKIPPED : next(info)
  }
}

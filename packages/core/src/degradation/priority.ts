import { describeValue } from '../errors.js'
import { callAppFunction, FunctionFailure } from '../http/app-functions.js'
import type { Reporter } from '../http/report.js'
import type { RequestInfo } from '../http/request-info.js'
import { DegradationError, functionFailed } from './errors.js'

/** A request's class, as an index into the classes (0 is the highest priority), or a promise of it. */
export type ClassOf<N> = (info: RequestInfo<N>) => number | Promise<number>

/**
 * Compile the `priority` option: the app's function names a class; the index of that class is returned.
 * The rule for a function that fails: a throw, a rejection or a name that is not a class gives the lowest
 * priority (the last class), and the error goes to `onError` once per request. So a broken `priority`
 * never crashes the server and never lifts a request above the others.
 */
export function compilePriority<N>(parts: {
  priority: ((req: N, info: RequestInfo<N>) => unknown) | undefined
  classes: readonly string[]
  report: Reporter<N>
}): ClassOf<N> {
  const { priority, classes, report } = parts
  const lowest = classes.length - 1
  if (priority === undefined) return () => lowest
  const index = new Map(classes.map((name, i) => [name, i]))
  const settle = (value: unknown, info: RequestInfo<N>): number => {
    if (value instanceof FunctionFailure) {
      report(functionFailed('priority', value), info)
      return lowest
    }
    const found = typeof value === 'string' ? index.get(value) : undefined
    if (found !== undefined) return found
    report(
      new DegradationError(
        'ERR_FLOODGATE_UNKNOWN_PRIORITY',
        `The \`priority\` function returned ${describeValue(value)}; expected one of ${classes.map((c) => `'${c}'`).join(', ')}. The request was given the lowest priority ('${classes[lowest]}').`,
        { option: 'priority' },
      ),
      info,
    )
    return lowest
  }
  return (info) => {
    const value = callAppFunction('priority', priority, info)
    return value instanceof Promise ? value.then((v) => settle(v, info)) : settle(value, info)
  }
}

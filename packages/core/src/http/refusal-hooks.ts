import type { Decision } from '../types.js'
import { callAppFunction, FunctionFailure } from './app-functions.js'
import { applyCustomResponse } from './custom-response.js'
import type { FailureAnswers } from './failure-answers.js'
import type { LimitedResponse, RateLimitOptions } from './options/types.js'
import type { AnsweredRequest, Outcome } from './outcome.js'
import type { Reporter } from './report.js'
import type { RequestInfo } from './request-info.js'

/** The app's hooks on a refusal: its message, `onLimited`, and its own `handler`. */
export interface RefusalHooks<N> {
  /** The message for a refusal's body, or `undefined` for the default. */
  messageOf(info: RequestInfo<N>, decision: Decision): string | undefined
  /** Tell `onLimited`, if set. */
  limited(result: Outcome, info: RequestInfo<N>): void
  /** Apply the custom `handler`, if set: its response, the default refusal when it fails, or a 500. */
  customize(result: AnsweredRequest, info: RequestInfo<N>): Outcome | Promise<Outcome>
}

/** Compile the refusal hooks of one limiter; whatever a hook does, the refusal is still sent. */
export function compileRefusalHooks<N>(parts: {
  options: Pick<RateLimitOptions<N>, 'message' | 'onLimited' | 'handler'>
  report: Reporter<N>
  answers: FailureAnswers<N>
}): RefusalHooks<N> {
  const { message, onLimited, handler } = parts.options
  const { report, answers } = parts
  const reportLater = (done: Promise<unknown>, info: RequestInfo<N>) =>
    done.then((settled) => {
      if (settled instanceof FunctionFailure) report(settled.error, info)
    })
  return {
    messageOf(info, decision) {
      if (typeof message !== 'function') return message
      const text = callAppFunction('message', (req: N, i: RequestInfo<N>) => message(req, i, decision), info)
      if (text instanceof FunctionFailure) {
        report(text.error, info)
        return undefined
      }
      return typeof text === 'string' ? text : undefined
    },
    limited(result, info) {
      if (!onLimited) return
      const done = callAppFunction('onLimited', (req: N) => onLimited(req, result), info)
      if (done instanceof FunctionFailure) report(done.error, info)
      else if (done instanceof Promise) reportLater(done, info)
    },
    customize(result, info) {
      if (!handler) return result
      const apply = (response: unknown): Outcome => {
        if (response instanceof FunctionFailure) {
          report(response.error, info)
          return result // the default refusal
        }
        const problem = applyCustomResponse(result, response as LimitedResponse | undefined)
        return problem ? answers.internalError(problem, info, true) : result
      }
      const response = callAppFunction(
        'handler',
        (req: N, i: RequestInfo<N>) => handler(req, result, i),
        info,
      )
      return response instanceof Promise ? response.then(apply) : apply(response)
    },
  }
}

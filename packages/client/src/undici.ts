import type { Dispatcher } from 'undici'
import { type Attempts, createEngine, type Engine } from './engine.js'
import { type ClientOptions, parseClientOptions } from './options.js'
import { wait } from './sleep.js'
import { dispatchFacts } from './undici-request.js'

type Controller = Dispatcher.DispatchController
type Handler = Dispatcher.DispatchHandler

/**
 * An undici interceptor that backs off politely, for `Agent.compose` / `dispatcher.compose`: the same
 * retries, budget and pacing as `createFetch`. A refused response that is retried is read to its end and
 * dropped; the one returned is the first that is not retried. A request whose body is a stream (as
 * undici's `fetch` sends every body) is never retried.
 *
 * @example
 * import { Agent, request } from 'undici'
 * import { createInterceptor } from '@floodgate/client/undici'
 * const dispatcher = new Agent().compose(createInterceptor({ maxAttempts: 4 }))
 * const { statusCode } = await request('https://api.example.com/items', { dispatcher })
 */
export function createInterceptor(options?: ClientOptions): Dispatcher.DispatcherComposeInterceptor {
  const engine = createEngine(parseClientOptions(options))
  return (dispatch) =>
    function politeDispatch(opts, handler) {
      politely(engine, dispatch, opts, handler)
      return true
    }
}

/** One request through its attempts, with one controller that the downstream handler keeps throughout. */
function politely(
  engine: Engine,
  dispatch: Dispatcher.Dispatch,
  opts: Dispatcher.DispatchOptions,
  handler: Handler,
) {
  const facts = dispatchFacts(opts)
  const state: Attempts = { attempt: 1, previousBackoffMs: undefined }
  let current: Controller | undefined
  let waiting: AbortController | undefined
  let abortReason: Error | undefined
  let paused = false
  let started = false
  let settled = false

  const controller: Controller = {
    get aborted() {
      return abortReason !== undefined || (current?.aborted ?? false)
    },
    get paused() {
      return paused
    },
    get reason() {
      return abortReason ?? current?.reason ?? null
    },
    abort(reason) {
      if (abortReason !== undefined || settled) return
      abortReason = reason
      if (waiting) waiting.abort(reason)
      else current?.abort(reason)
    },
    pause() {
      paused = true
      current?.pause()
    },
    resume() {
      paused = false
      current?.resume()
    },
  }

  const fail = (error: unknown) => {
    if (settled) return
    settled = true
    handler.onResponseError?.(controller, error instanceof Error ? error : new Error(String(error)))
  }

  /** Wait `ms` (abortable through the controller), then go on. */
  const later = (ms: number, then: () => void) => {
    if (!started) {
      // The downstream handler gets the controller now, so that an abort reaches the wait.
      started = true
      handler.onRequestStart?.(controller, {})
    }
    waiting = new AbortController()
    wait(engine.settings.sleep, ms, waiting.signal).then(
      () => {
        waiting = undefined
        then()
      },
      (reason) => {
        waiting = undefined
        fail(reason)
      },
    )
  }

  const send = () => {
    if (abortReason !== undefined) return fail(abortReason)
    let forwarding = false
    let retryIn: number | undefined
    const attempt: Handler = {
      onRequestStart(ctrl, context) {
        current = ctrl
        if (abortReason !== undefined) return ctrl.abort(abortReason)
        if (paused) ctrl.pause()
        started = true
        handler.onRequestStart?.(controller, context)
      },
      onRequestUpgrade(_ctrl, statusCode, headers, socket) {
        handler.onRequestUpgrade?.(controller, statusCode, headers, socket)
      },
      onResponseStart(_ctrl, statusCode, headers, statusMessage) {
        const verdict = engine.verdict(facts, state, statusCode, headers)
        if (verdict.retry) {
          retryIn = verdict.delayMs
          return
        }
        forwarding = true
        handler.onResponseStart?.(controller, statusCode, headers, statusMessage)
      },
      onResponseData(_ctrl, chunk) {
        if (forwarding) handler.onResponseData?.(controller, chunk)
      },
      onResponseEnd(_ctrl, trailers) {
        if (forwarding) {
          settled = true
          handler.onResponseEnd?.(controller, trailers)
        } else if (retryIn !== undefined) {
          later(retryIn, () => {
            state.attempt++
            paced()
          })
        }
      },
      onResponseError(_ctrl, error) {
        fail(error)
      },
    }
    try {
      dispatch(opts, attempt)
    } catch (error) {
      fail(error)
    }
  }

  const paced = () => {
    const pause = engine.paceDelay(facts.origin)
    if (pause > 0) later(pause, send)
    else send()
  }

  paced()
}

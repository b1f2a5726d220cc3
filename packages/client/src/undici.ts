import type { Dispatcher } from 'undici'
import { type Attempts, createEngine, type Engine } from './engine.js'
import { type ClientOptions, parseClientOptions } from './options.js'
import { wait } from './sleep.js'
import { dispatchFacts } from './undici-request.js'

type Controller = Dispatcher.DispatchController
type Handler = Dispatcher.DispatchHandler

/**
 * The most of a retried refusal's body that is read and dropped (so that its connection can be used again):
 * past 64 KiB, or 1 s (a timer of its own: the `sleep` option paces retries, not reads), the response is aborted (its connection closed) and the
 * request goes on to its retry. A body that trickles never holds a request.
 */
export const DRAIN_LIMIT = { bytes: 65_536, ms: 1_000 } as const

/**
 * An undici interceptor that backs off politely, for `Agent.compose` / `dispatcher.compose`: the same
 * retries, budget and pacing as `createFetch`. A refused response that is retried is read to its end and
 * dropped, within {@link DRAIN_LIMIT} (past it, aborted); the one returned is the first that is not retried. A request whose body is a stream (as
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
        // What comes next calls the app's options (`now`, a budget): what they throw fails this request only.
        try {
          then()
        } catch (error) {
          fail(error)
        }
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
    // A refusal being drained: its deadline, the bytes dropped, and whether it is over (ended or cut short).
    let deadline: ReturnType<typeof setTimeout> | undefined
    let dropped = 0
    let drained = false

    /** The drained refusal is over: wait, then send again (unless the request was aborted meanwhile). */
    const retry = () => {
      if (drained) return
      drained = true
      clearTimeout(deadline)
      if (abortReason !== undefined) return fail(abortReason)
      later(retryIn!, () => {
        state.attempt++
        paced()
      })
    }
    /** Stop reading a refusal past its drain limit: abort it (its connection is closed), and retry. */
    const cutShort = (ctrl: Controller) => {
      if (drained) return
      retry()
      ctrl.abort(new Error('A retried refusal was dropped unread past its drain limit'))
    }

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
      onResponseStart(ctrl, statusCode, headers, statusMessage) {
        let verdict: ReturnType<Engine['verdict']>
        try {
          verdict = engine.verdict(facts, state, statusCode, headers)
        } catch (error) {
          // An option of the app's (its `now`, `random` or budget) threw: the request fails with that error.
          drained = true
          ctrl.abort(error instanceof Error ? error : new Error(String(error)))
          return fail(error)
        }
        if (verdict.retry) {
          retryIn = verdict.delayMs
          deadline = setTimeout(cutShort, DRAIN_LIMIT.ms, ctrl)
          return
        }
        forwarding = true
        handler.onResponseStart?.(controller, statusCode, headers, statusMessage)
      },
      onResponseData(ctrl, chunk) {
        if (forwarding) handler.onResponseData?.(controller, chunk)
        else if (retryIn !== undefined) {
          dropped += chunk.length
          if (dropped > DRAIN_LIMIT.bytes) cutShort(ctrl)
        }
      },
      onResponseEnd(_ctrl, trailers) {
        if (forwarding) {
          settled = true
          handler.onResponseEnd?.(controller, trailers)
        } else if (retryIn !== undefined) retry()
      },
      onResponseError(_ctrl, error) {
        // A refusal already decided for a retry that fails while it drains is retried all the same.
        if (retryIn !== undefined && !forwarding) retry()
        else if (!drained) fail(error)
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

  try {
    paced()
  } catch (error) {
    fail(error) // the app's `now` threw
  }
}

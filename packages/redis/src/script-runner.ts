import { CallFailure, Deadlines, type Pending, type Settled, settle } from '@floodgate/core/internal'
import { RedisStoreError, replyCode } from './errors.js'
import type { RedisClient } from './options.js'
import type { Script } from './scripts/index.js'

/** ioredis's binary-reply EVALSHA and EVAL (present at runtime on every ioredis client). */
interface BinaryEval {
  evalshaBuffer(sha: string, numKeys: number, ...args: string[]): Promise<unknown>
  evalBuffer(script: string, numKeys: number, ...args: string[]): Promise<unknown>
}

/** A failure from the client: an error reply is not an outage; anything else (a connection error) is. */
const failure = (error: unknown): CallFailure => new CallFailure(error, false, replyCode(error) === undefined)

/**
 * Runs scripts and commands on Redis, each bounded by `timeoutMs`: it settles with Redis's reply or a
 * {@link CallFailure}, never rejects, never waits longer. EVALSHA falls back to EVAL (which also loads the
 * script) on a NOSCRIPT reply, and only then, within the same bound.
 */
export class ScriptRunner {
  /** Whether replies come back as binary (the client has ioredis's `evalshaBuffer`). */
  readonly binary: boolean
  private readonly evaluator: BinaryEval | undefined
  private readonly deadlines: Deadlines

  constructor(
    private readonly client: RedisClient,
    timeoutMs: number,
  ) {
    const candidate = client as Partial<BinaryEval>
    this.evaluator =
      typeof candidate.evalshaBuffer === 'function' && typeof candidate.evalBuffer === 'function'
        ? (candidate as BinaryEval)
        : undefined
    this.binary = this.evaluator !== undefined
    const message = `Redis did not answer within ${timeoutMs} ms`
    this.deadlines = new Deadlines(
      timeoutMs,
      () => new CallFailure(new RedisStoreError('ERR_FLOODGATE_REDIS_TIMEOUT', message), true, true),
    )
  }

  /** EVALSHA `script` with `numKeys` keys first in `args`. */
  run(script: Script, numKeys: number, args: string[]): Promise<Settled> {
    return this.within((pending) => {
      const onError = (error: unknown) => {
        if (pending.done || replyCode(error) !== 'NOSCRIPT') return settle(pending, failure(error))
        try {
          const load = this.evaluator
            ? this.evaluator.evalBuffer(script.source, numKeys, ...args)
            : this.client.eval(script.source, numKeys, ...args)
          load.then(
            (reply) => settle(pending, reply),
            (error) => settle(pending, failure(error)),
          )
        } catch (error) {
          settle(pending, failure(error))
        }
      }
      const call = this.evaluator
        ? this.evaluator.evalshaBuffer(script.sha, numKeys, ...args)
        : this.client.evalsha(script.sha, numKeys, ...args)
      call.then((reply) => settle(pending, reply), onError)
    })
  }

  /** DEL `key`, bounded like a script. */
  del(key: string): Promise<Settled> {
    return this.within((pending) =>
      this.client.del(key).then(
        (reply) => settle(pending, reply),
        (error) => settle(pending, failure(error)),
      ),
    )
  }

  /** Start a call with a deadline; a synchronous throw settles it as a failure. */
  private within(start: (pending: Pending) => void): Promise<Settled> {
    return new Promise((resolve) => {
      const pending: Pending = { done: false, deadline: 0, resolve }
      this.deadlines.add(pending)
      try {
        start(pending)
      } catch (error) {
        settle(pending, failure(error))
      }
    })
  }
}

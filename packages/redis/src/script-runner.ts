import type { BoundHistogram } from '@floodgate/core/internal'
import { CallFailure, Deadlines, type Pending, type Settled, settle } from '@floodgate/core/internal'
import { adaptClient, type RedisClient, type ScriptClient } from './clients/index.js'
import { RedisStoreError, replyCode } from './errors.js'
import type { Script } from './scripts/index.js'

/** How long a script answered TRYAGAIN waits before it is sent again (ms). */
const TRY_AGAIN_MS = 20

/** A failure from the client: an error reply is not an outage; anything else (a connection error) is. */
const failure = (error: unknown): CallFailure => new CallFailure(error, false, replyCode(error) === undefined)

/**
 * The deadlines of a RedisStore's calls (shared with a SyncedStore over it), bounded by `timeoutMs` until a
 * limiter sets the store's bound; a call past it settles with `ERR_FLOODGATE_REDIS_TIMEOUT`.
 */
export function redisDeadlines(timeoutMs: number): Deadlines {
  return new Deadlines(
    timeoutMs,
    (ms) =>
      new CallFailure(
        new RedisStoreError('ERR_FLOODGATE_REDIS_TIMEOUT', `Redis did not answer within ${ms} ms`),
        true,
        true,
      ),
  )
}

/**
 * Runs scripts and commands on Redis, each bounded by its `deadlines`: it settles with Redis's reply or a
 * {@link CallFailure}, never rejects, never waits longer. EVALSHA falls back to EVAL (which also loads the
 * script) on a NOSCRIPT reply, and only then, within the same bound; a TRYAGAIN reply is sent again. The client (ioredis or node-redis) is
 * adapted once, here; the runner is also the circuit's view of its connection (`status`).
 */
export class ScriptRunner {
  /** Whether replies come back as binary (see {@link ScriptClient.binary}). */
  readonly binary: boolean
  /** Whether the client is a Redis Cluster client. */
  readonly isCluster: boolean
  private readonly client: ScriptClient

  constructor(
    client: RedisClient,
    private readonly deadlines: Deadlines,
  ) {
    this.client = adaptClient(client)
    this.binary = this.client.binary
    this.isCluster = this.client.isCluster
  }

  /** `'ready'` while the client is connected (see {@link ScriptClient.status}). */
  get status(): string | undefined {
    return this.client.status
  }

  /**
   * EVALSHA `script` with `numKeys` keys first in `args`. A Buffer argument (given only when {@link binary}:
   * both clients that take binary replies send a Buffer as its bytes) is a script's binary ARGV.
   */
  run(
    script: Script,
    numKeys: number,
    given: readonly (string | Buffer)[],
    timing?: BoundHistogram,
  ): Promise<Settled> {
    const args = given as readonly string[]
    return this.within(timing, (pending) => this.send(pending, script, numKeys, args, false))
  }

  /**
   * Send `script` for `pending`: EVALSHA, or EVAL (`load`) once Redis answered NOSCRIPT. A TRYAGAIN reply (a
   * Cluster slot being moved while its keys are split between two nodes: the script did not run) is sent
   * again after {@link TRY_AGAIN_MS}, until it runs or the call's deadline passes.
   */
  private send(
    pending: Pending,
    script: Script,
    numKeys: number,
    args: readonly string[],
    load: boolean,
  ): void {
    if (pending.done) return
    const onError = (error: unknown) => {
      if (pending.done) return
      const code = replyCode(error)
      if (code === 'TRYAGAIN') {
        setTimeout(() => this.send(pending, script, numKeys, args, load), TRY_AGAIN_MS)
      } else if (code === 'NOSCRIPT' && !load) {
        this.send(pending, script, numKeys, args, true)
      } else {
        settle(pending, failure(error))
      }
    }
    try {
      const sent = load
        ? this.client.eval(script.source, numKeys, args)
        : this.client.evalsha(script.sha, numKeys, args)
      sent.then((reply) => settle(pending, reply), onError)
    } catch (error) {
      settle(pending, failure(error))
    }
  }

  /** DEL `key`, bounded like a script. */
  del(key: string, timing?: BoundHistogram): Promise<Settled> {
    return this.within(timing, (pending) =>
      this.client.del(key).then(
        (reply) => settle(pending, reply),
        (error) => settle(pending, failure(error)),
      ),
    )
  }

  /**
   * Start a call with a deadline (its duration recorded in `timing`, when given, as it settles); a synchronous
   * throw settles it as a failure.
   */
  private within(timing: BoundHistogram | undefined, start: (pending: Pending) => void): Promise<Settled> {
    return new Promise((resolve) => {
      const pending = this.deadlines.start(resolve, timing)
      try {
        start(pending)
      } catch (error) {
        settle(pending, failure(error))
      }
    })
  }
}

import type { ScriptClient } from './script-client.js'

/**
 * An ioredis client, `new Redis(url)` or `new Redis.Cluster(nodes)`, as the few things the store uses:
 * `evalsha`, `eval` and `del`, plus `status` and `isCluster` when it has them. Any object with those
 * methods fits (a wrapper, a client with `enableAutoPipelining`).
 */
export interface IoredisClient {
  evalsha(sha: string, numKeys: number, ...args: string[]): Promise<unknown>
  eval(script: string, numKeys: number, ...args: string[]): Promise<unknown>
  del(key: string): Promise<unknown>
  /** ioredis's connection state: `'ready'` when connected. */
  readonly status?: string
  /** `true` on an ioredis Cluster. */
  readonly isCluster?: boolean
}

/** ioredis's binary-reply EVALSHA and EVAL (present at runtime on every ioredis client; its types omit them). */
interface BinaryEval {
  evalshaBuffer(sha: string, numKeys: number, ...args: string[]): Promise<unknown>
  evalBuffer(script: string, numKeys: number, ...args: string[]): Promise<unknown>
}

/**
 * What an ioredis client with `enableAutoPipelining` offers besides: its options, and a pipeline of its own
 * (which the auto-pipeline does not join).
 */
interface OwnPipeline {
  readonly options?: { readonly enableAutoPipelining?: boolean }
  pipeline(): BinaryEval & { exec(): Promise<[Error | null, unknown][] | null> }
}

const METHODS = ['evalsha', 'eval', 'del'] as const

/** Whether `value` has the methods of {@link IoredisClient}. */
export function isIoredisClient(value: object): value is IoredisClient {
  return METHODS.every((m) => typeof (value as Record<string, unknown>)[m] === 'function')
}

/**
 * Whether `error` is an ioredis error reply (its `ReplyError`, named so), as opposed to a connection error
 * or a timeout.
 */
export function isIoredisReplyError(error: Error): boolean {
  return error.name === 'ReplyError'
}

/**
 * The store's view of an ioredis client: binary replies through `evalshaBuffer`/`evalBuffer` when the client
 * has them, else text replies through `evalsha`/`eval`; with `enableAutoPipelining`, a call of several keys in
 * a pipeline of its own.
 */
export function adaptIoredis(client: IoredisClient): ScriptClient {
  const candidate = client as IoredisClient & Partial<BinaryEval> & Partial<OwnPipeline>
  const binary = typeof candidate.evalshaBuffer === 'function' && typeof candidate.evalBuffer === 'function'
  const buffers = candidate as IoredisClient & BinaryEval
  // With enableAutoPipelining, ioredis holds every command until the next tick and answers the commands of one
  // tick together, once the last reply is in: two batch calls of one tick would wait for each other, and Redis
  // would run the second only after the first one's callers are answered. A call of several keys (a batch, or a
  // request's policies) is a pipeline already: it goes in a pipeline of its own, at once.
  const ownPipeline =
    binary && candidate.options?.enableAutoPipelining === true && typeof candidate.pipeline === 'function'
  /** EVALSHA or EVAL: `binaryMethod` when the client has it, else `textMethod`; several keys in a pipeline of their own. */
  const scriptCall = (
    binaryMethod: keyof BinaryEval,
    textMethod: 'evalsha' | 'eval',
  ): ScriptClient['eval'] => {
    const direct: ScriptClient['eval'] = binary
      ? (script, numKeys, args) => buffers[binaryMethod](script, numKeys, ...args)
      : (script, numKeys, args) => client[textMethod](script, numKeys, ...args)
    if (!ownPipeline) return direct
    return (script, numKeys, args) => {
      if (numKeys <= 1) return direct(script, numKeys, args)
      const pipeline = (candidate as OwnPipeline).pipeline()
      pipeline[binaryMethod](script, numKeys, ...args)
      return pipeline.exec().then(firstReply)
    }
  }
  return {
    evalsha: scriptCall('evalshaBuffer', 'evalsha'),
    eval: scriptCall('evalBuffer', 'eval'),
    del: (key) => client.del(key),
    get status() {
      return client.status
    },
    isCluster: client.isCluster === true,
    binary,
  }
}

/** The reply of a pipeline's only command, or its error thrown. */
function firstReply(results: [Error | null, unknown][] | null): unknown {
  const [error, reply] = results?.[0] ?? [new Error('ioredis answered a pipeline with no reply'), undefined]
  if (error) throw error
  return reply
}

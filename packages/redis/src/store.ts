import {
  type Algorithm,
  type ConsumeItem,
  consumeAll as consumeOneByOne,
  type Decision,
  MemoryStore,
  type Store,
} from '@floodgate/core'
import { BlockCache } from './block-cache.js'
import { Circuit } from './circuit.js'
import { Deadlines, Failure, type Outcome, type Pending, settle } from './deadlines.js'
import {
  closedDecision,
  type DecisionSource,
  openDecision,
  parseDecision,
  type RedisDecision,
} from './decision.js'
import { RedisStoreError, replyCode } from './errors.js'
import { keySlot, redisKey } from './keys.js'
import {
  type FailMode,
  parseStoreOptions,
  type RedisClient,
  type RedisStoreErrorEvent,
  type RedisStoreOptions,
} from './options.js'
import { scriptParams } from './params.js'
import { CONSUME_ALL, SCRIPTS, type Script } from './scripts/index.js'

/** ioredis's binary-reply EVALSHA and EVAL (present at runtime on every ioredis client). */
interface BinaryEval {
  evalshaBuffer(sha: string, numKeys: number, ...args: string[]): Promise<unknown>
  evalBuffer(script: string, numKeys: number, ...args: string[]): Promise<unknown>
}

interface Prepared {
  script: Script
  params: string[]
}

type Operation = RedisStoreErrorEvent['operation']

const DEFAULT_BLOCK_CACHE_KEYS = 10_000

/**
 * Rate-limit state in Redis, shared by every server: each algorithm is one Lua script, run with a single
 * EVALSHA per decision (read, decide and write atomically, on the Redis server's clock unless the limiter
 * passes a time). Works on a standalone Redis and on a Redis Cluster; every decision is bounded by
 * `timeoutMs` and, when Redis fails, taken by `failMode`.
 *
 * @example
 * const store = new RedisStore({ client: new Redis(process.env.REDIS_URL), failMode: 'fallback' })
 * const limiter = createLimiter({ algorithm: gcra({ rate: 10 }), store })
 */
export class RedisStore implements Store {
  readonly client: RedisClient
  readonly prefix: string
  readonly timeoutMs: number
  readonly failMode: FailMode
  /** The store used while Redis is unavailable, with `failMode: 'fallback'`. */
  readonly fallback: Store | undefined
  private readonly cooldownMs: number
  private readonly grace: string
  private readonly onError: RedisStoreOptions['onError']
  private readonly circuit: Circuit
  private readonly blocks: BlockCache | undefined
  private readonly prepared = new WeakMap<Algorithm, Prepared>()
  private readonly oneByOne: Store
  private readonly deadlines: Deadlines
  /** The client's binary-reply variants (every ioredis client has them), or undefined: text replies. */
  private readonly binary: BinaryEval | undefined
  private readonly ops: { consume: string; peek: string; refund: string }

  constructor(options: RedisStoreOptions) {
    const parsed = parseStoreOptions(options)
    this.client = parsed.client
    this.prefix = parsed.prefix
    this.timeoutMs = parsed.timeoutMs
    this.failMode = parsed.failMode
    this.fallback = parsed.fallback ?? (parsed.failMode === 'fallback' ? new MemoryStore() : undefined)
    this.cooldownMs = parsed.cooldownMs
    this.grace = String(parsed.expiryGraceMs)
    this.onError = parsed.onError
    this.circuit = new Circuit(this.client, this.cooldownMs)
    const timeoutMessage = `Redis did not answer within ${this.timeoutMs} ms`
    this.deadlines = new Deadlines(
      this.timeoutMs,
      () => new Failure(new RedisStoreError('ERR_FLOODGATE_REDIS_TIMEOUT', timeoutMessage), true, true),
    )
    const candidate = this.client as Partial<BinaryEval>
    this.binary =
      typeof candidate.evalshaBuffer === 'function' && typeof candidate.evalBuffer === 'function'
        ? (candidate as BinaryEval)
        : undefined
    this.ops = this.binary
      ? { consume: 'c', peek: 'p', refund: 'r' }
      : { consume: 'C', peek: 'P', refund: 'R' }
    const cache = parsed.blockCache
    this.blocks =
      cache === false ? undefined : new BlockCache(cache === true ? DEFAULT_BLOCK_CACHE_KEYS : cache.maxKeys)
    // The same store seen without consumeAll, for core's consume-then-refund path (Cluster, across slots).
    this.oneByOne = {
      consume: (a, k, c, n) => this.consume(a, k, c, n),
      peek: (a, k, c, n) => this.peek(a, k, c, n),
      refund: (a, k, c, n) => this.refund(a, k, c, n),
      reset: (a, k) => this.reset(a, k),
      close: () => {},
    }
  }

  /** Whether decisions are failing fast right now because Redis recently failed. */
  get degraded(): boolean {
    return this.circuit.open
  }

  /** The Redis key holding `key`'s state for `algorithm`: `prefix:{key}:id`, the key escaped or hashed. */
  keyOf(algorithm: Algorithm, key: string): string {
    return redisKey(this.prefix, key, algorithm.id)
  }

  consume(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<RedisDecision> {
    const rkey = redisKey(this.prefix, key, algorithm.id)
    const injected = now !== undefined
    const blocks = this.blocks
    const sentAt = blocks ? (injected ? now : performance.now()) : 0
    if (blocks) {
      const cached = blocks.get(rkey, algorithm, cost, sentAt, injected)
      if (cached) return Promise.resolve(cached)
    }
    if (!this.circuit.allows()) return this.failDecision('consume', algorithm, key, cost, now)
    const { script, params } = this.prepare(algorithm)
    const args = [rkey, this.ops.consume, injected ? String(now) : '', costArg(cost), this.grace, ...params]
    return this.run(script, 1, args).then((outcome) => {
      const decision = this.decided(outcome, 'consume', algorithm, key, cost, now)
      if (blocks && !(decision instanceof Promise) && !decision.allowed) {
        blocks.add(rkey, algorithm, cost, decision, sentAt, injected)
      }
      return decision
    })
  }

  peek(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<RedisDecision> {
    if (!this.circuit.allows()) return this.failDecision('peek', algorithm, key, cost, now)
    const { script, params } = this.prepare(algorithm)
    const rkey = redisKey(this.prefix, key, algorithm.id)
    const args = [
      rkey,
      this.ops.peek,
      now === undefined ? '' : String(now),
      String(cost),
      this.grace,
      ...params,
    ]
    return this.run(script, 1, args).then((outcome) =>
      this.decided(outcome, 'peek', algorithm, key, cost, now),
    )
  }

  /** Give units back. Never rejects: a failure is reported to `onError` (and applied to the fallback store). */
  refund(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<void> {
    const rkey = redisKey(this.prefix, key, algorithm.id)
    this.blocks?.delete(rkey)
    if (!this.circuit.allows()) return this.fallbackRefund(algorithm, key, cost, now)
    const { script, params } = this.prepare(algorithm)
    const args = [
      rkey,
      this.ops.refund,
      now === undefined ? '' : String(now),
      String(cost),
      this.grace,
      ...params,
    ]
    return this.run(script, 1, args).then((outcome) => {
      if (!(outcome instanceof Failure)) return
      this.report('refund', outcome, key)
      return this.fallbackRefund(algorithm, key, cost, now)
    })
  }

  /** Forget `key` (in Redis, in the block cache and in the fallback store). Rejects when Redis fails. */
  async reset(algorithm: Algorithm, key: string): Promise<void> {
    const rkey = redisKey(this.prefix, key, algorithm.id)
    this.blocks?.delete(rkey)
    if (this.fallback) await this.fallback.reset(algorithm, key)
    const outcome = await this.within((pending) => this.client.del(rkey).then(ok(pending), fail(pending)))
    if (outcome instanceof Failure) {
      this.report('reset', outcome, key)
      throw outcome.error
    }
  }

  /**
   * Decide several policies as one: all are consumed or none. On a standalone Redis (and on a Cluster when
   * every key sits on one slot) one script does it atomically. On a Cluster with keys on several slots no
   * script can touch them all, so it consumes one by one and refunds on a refusal (core's `consumeAll`):
   * a concurrent request may briefly see that quota spent.
   */
  consumeAll(items: readonly ConsumeItem[], now?: number): Promise<Decision[]> {
    if (items.length === 0) return Promise.resolve([])
    const keys = items.map((item) => redisKey(this.prefix, item.key, item.algorithm.id))
    if (this.client.isCluster === true) {
      const slot = keySlot(keys[0]!)
      if (keys.some((k) => keySlot(k) !== slot)) return consumeOneByOne(this.oneByOne, items, now)
    }
    if (!this.circuit.allows()) return this.failAll(items, now)
    const args: string[] = [
      ...keys,
      this.binary ? 'b' : 't',
      now === undefined ? '' : String(now),
      this.grace,
    ]
    for (const item of items) {
      const params = this.prepare(item.algorithm).params
      args.push(
        item.algorithm.kind,
        costArg(item.cost),
        params[0] ?? '',
        params[1] ?? '',
        params[2] ?? '',
        params[3] ?? '',
      )
    }
    const injected = now !== undefined
    const sentAt = injected ? now : performance.now()
    return this.run(CONSUME_ALL, keys.length, args).then((outcome) => {
      if (outcome instanceof Failure) {
        this.report('consumeAll', outcome, items[0]!.key)
        return this.failAll(items, now)
      }
      const replies = outcome as unknown[]
      return items.map((item, i) => {
        const decision = parseDecision(replies[i], item.algorithm)
        if (this.blocks && !decision.allowed) {
          this.blocks.add(keys[i]!, item.algorithm, item.cost, decision, sentAt, injected)
        }
        return decision
      })
    })
  }

  /** Drop the block cache. The client is yours: the store never closes it. */
  close(): void {
    this.blocks?.clear()
  }

  private prepare(algorithm: Algorithm): Prepared {
    let prepared = this.prepared.get(algorithm)
    if (!prepared) {
      prepared = { script: SCRIPTS[algorithm.kind], params: scriptParams(algorithm) }
      this.prepared.set(algorithm, prepared)
    }
    return prepared
  }

  /**
   * EVALSHA, bounded by `timeoutMs`; on a NOSCRIPT reply (and only then) EVAL, which also loads the
   * script, within the same bound. Never rejects.
   */
  private run(script: Script, numKeys: number, args: string[]): Promise<Outcome> {
    return this.within((pending) => {
      const onError = (error: unknown) => {
        if (pending.done || replyCode(error) !== 'NOSCRIPT') return settle(pending, failed(error))
        try {
          const load = this.binary
            ? this.binary.evalBuffer(script.source, numKeys, ...args)
            : this.client.eval(script.source, numKeys, ...args)
          load.then(ok(pending), fail(pending))
        } catch (error) {
          settle(pending, failed(error))
        }
      }
      const call = this.binary
        ? this.binary.evalshaBuffer(script.sha, numKeys, ...args)
        : this.client.evalsha(script.sha, numKeys, ...args)
      call.then(ok(pending), onError)
    })
  }

  /** Start a call with a deadline; a synchronous throw settles it as a failure. */
  private within(start: (pending: Pending) => void): Promise<Outcome> {
    return new Promise((resolve) => {
      const pending: Pending = { done: false, deadline: 0, resolve }
      this.deadlines.add(pending)
      try {
        start(pending)
      } catch (error) {
        settle(pending, failed(error))
      }
    })
  }

  /** Report a failure; a timeout or a connection error (anything but an error reply) opens the circuit. */
  private report(operation: Operation, outcome: Failure, key: string): void {
    if (outcome.outage) this.circuit.trip()
    if (!this.onError) return
    const error = outcome.error instanceof Error ? outcome.error : new Error(String(outcome.error))
    try {
      this.onError(error, { operation, key, failMode: this.failMode, timedOut: outcome.timedOut })
    } catch {
      // onError must not throw; a throwing hook must not turn a decision into a rejection.
    }
  }

  /** The decision a script's reply (or failure) makes; an unreadable reply counts as a failure. */
  private decided(
    outcome: unknown,
    operation: 'consume' | 'peek',
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): RedisDecision | Promise<RedisDecision> {
    if (outcome instanceof Failure) return this.failed(operation, outcome, algorithm, key, cost, now)
    try {
      return parseDecision(outcome, algorithm)
    } catch (error) {
      return this.failed(operation, new Failure(error, false, false), algorithm, key, cost, now)
    }
  }

  private failed(
    operation: 'consume' | 'peek',
    outcome: Failure,
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): Promise<RedisDecision> {
    this.report(operation, outcome, key)
    return this.failDecision(operation, algorithm, key, cost, now)
  }

  private failDecision(
    operation: 'consume' | 'peek',
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): Promise<RedisDecision> {
    if (this.failMode === 'open') return Promise.resolve(openDecision(algorithm, cost, operation === 'peek'))
    if (this.failMode === 'closed') return Promise.resolve(closedDecision(algorithm, this.cooldownMs))
    const fallback = this.fallback!
    const decision =
      operation === 'peek'
        ? fallback.peek(algorithm, key, cost, now)
        : fallback.consume(algorithm, key, cost, now)
    return Promise.resolve(decision).then((d) => withSource(d, 'fallback'))
  }

  private failAll(items: readonly ConsumeItem[], now: number | undefined): Promise<Decision[]> {
    if (this.failMode === 'open')
      return Promise.resolve(items.map((i) => openDecision(i.algorithm, i.cost, false)))
    if (this.failMode === 'closed') {
      return Promise.resolve(items.map((i) => closedDecision(i.algorithm, this.cooldownMs)))
    }
    return consumeOneByOne(this.fallback!, items, now).then((ds) => ds.map((d) => withSource(d, 'fallback')))
  }

  private fallbackRefund(
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): Promise<void> {
    if (this.failMode !== 'fallback') return Promise.resolve()
    return Promise.resolve(this.fallback!.refund(algorithm, key, cost, now))
  }
}

const costArg = (cost: number): string => (cost === 1 ? '1' : String(cost))
const failed = (error: unknown): Failure => new Failure(error, false, replyCode(error) === undefined)
const ok = (pending: Pending) => (value: unknown) => settle(pending, value)
const fail = (pending: Pending) => (error: unknown) => settle(pending, failed(error))

function withSource(decision: Decision, source: DecisionSource): RedisDecision {
  const tagged = decision as RedisDecision
  tagged.source = source
  return tagged
}

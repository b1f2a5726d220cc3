import { type Algorithm, type ConsumeItem, type Decision, MemoryStore, type Store } from '@floodgate/core'
import {
  CallFailure,
  Circuit,
  consumeInGroups,
  createStoreMetrics,
  type FailModeDecisions,
  failModeDecisions,
  type Settled,
  type StoreMetrics,
} from '@floodgate/core/internal'
import { BlockCache } from './block-cache.js'
import {
  type FailMode,
  parseStoreOptions,
  type RedisClient,
  type RedisStoreErrorEvent,
  type RedisStoreOptions,
} from './options.js'
import { keySlot, redisKey } from './redis-key.js'
import { ScriptRunner } from './script-runner.js'
import { CONSUME_ALL, SCRIPTS, type Script } from './scripts/index.js'
import {
  consumeAllArgs,
  type Operation,
  parseReply,
  type RedisDecision,
  scriptParams,
  singleArgs,
} from './wire.js'

interface Prepared {
  script: Script
  params: string[]
}

const DEFAULT_BLOCK_CACHE_KEYS = 10_000

/**
 * Rate-limit state in Redis, shared by every server: each algorithm is one Lua script, run with a single
 * EVALSHA per decision (read, decide and write atomically, on the Redis server's clock unless the limiter
 * passes a time). Works on a standalone Redis and on a Redis Cluster, with ioredis or node-redis; every
 * decision is bounded by `timeoutMs` and, when Redis fails, taken by `failMode`.
 *
 * @example
 * const store = new RedisStore({ client: new Redis(process.env.REDIS_URL), failMode: 'fallback' })
 * const limiter = createLimiter({ algorithm: gcra({ rate: 10 }), store })
 * @example
 * const store = new RedisStore({ client: await createClient({ url: process.env.REDIS_URL }).connect() })
 */
export class RedisStore implements Store {
  readonly client: RedisClient
  readonly prefix: string
  readonly timeoutMs: number
  readonly failMode: FailMode
  /** The store used while Redis is unavailable, with `failMode: 'fallback'`. */
  readonly fallback: Store | undefined
  private readonly grace: string
  private readonly onError: RedisStoreOptions['onError']
  private readonly circuit: Circuit
  private readonly blocks: BlockCache | undefined
  private readonly prepared = new WeakMap<Algorithm, Prepared>()
  private readonly runner: ScriptRunner
  private readonly failing: FailModeDecisions
  private readonly metrics: StoreMetrics | undefined

  constructor(options: RedisStoreOptions) {
    const parsed = parseStoreOptions(options)
    this.client = parsed.client
    this.prefix = parsed.prefix
    this.timeoutMs = parsed.timeoutMs
    this.failMode = parsed.failMode
    this.fallback = parsed.fallback ?? (parsed.failMode === 'fallback' ? new MemoryStore() : undefined)
    this.grace = String(parsed.expiryGraceMs)
    this.onError = parsed.onError
    this.runner = new ScriptRunner(parsed.client, this.timeoutMs)
    this.circuit = new Circuit(this.runner, parsed.cooldownMs)
    this.metrics = createStoreMetrics({
      sink: parsed.metrics,
      store: 'redis',
      operations: ['consume', 'consume_all', 'peek', 'refund', 'reset'],
      circuitOpen: () => this.circuit.open,
    })
    this.failing = failModeDecisions({
      failMode: this.failMode,
      fallback: this.fallback,
      closedRetryAfterMs: parsed.cooldownMs,
      metrics: this.metrics,
    })
    const cache = parsed.blockCache
    this.blocks =
      cache === false ? undefined : new BlockCache(cache === true ? DEFAULT_BLOCK_CACHE_KEYS : cache.maxKeys)
  }

  /** Whether decisions are failing fast right now because Redis recently failed. */
  get degraded(): boolean {
    return this.circuit.open
  }

  /** The Redis key holding `key`'s state for `algorithm` (see `redisKey`). */
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
      if (cached) {
        this.metrics?.blockCacheHit()
        return Promise.resolve(cached)
      }
    }
    if (!this.circuit.allows()) return this.fallBack('consume', algorithm, key, cost, now)
    return this.decideOne('consume', rkey, algorithm, key, cost, now).then((decision) => {
      if (blocks && decision.source === 'redis' && !decision.allowed) {
        blocks.add(rkey, algorithm, cost, decision, sentAt, injected)
      }
      return decision
    })
  }

  peek(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<RedisDecision> {
    if (!this.circuit.allows()) return this.fallBack('peek', algorithm, key, cost, now)
    return this.decideOne('peek', redisKey(this.prefix, key, algorithm.id), algorithm, key, cost, now)
  }

  /** Give units back. Never rejects: a failure is reported to `onError` (and applied to the fallback store). */
  refund(algorithm: Algorithm, key: string, cost: number, now?: number): Promise<void> {
    const rkey = redisKey(this.prefix, key, algorithm.id)
    this.blocks?.delete(rkey)
    if (!this.circuit.allows()) return this.failing.refund(algorithm, key, cost, now)
    return this.call('refund', rkey, algorithm, cost, now).then((settled) => {
      if (!(settled instanceof CallFailure)) return
      this.report('refund', settled, key)
      return this.failing.refund(algorithm, key, cost, now)
    })
  }

  /** Forget `key` (in Redis, in the block cache and in the fallback store). Rejects when Redis fails. */
  async reset(algorithm: Algorithm, key: string): Promise<void> {
    const rkey = redisKey(this.prefix, key, algorithm.id)
    this.blocks?.delete(rkey)
    if (this.fallback) await this.fallback.reset(algorithm, key)
    const deleting = this.runner.del(rkey)
    const settled = await (this.metrics ? this.metrics.timed('reset', deleting) : deleting)
    if (settled instanceof CallFailure) {
      this.report('reset', settled, key)
      throw settled.error
    }
  }

  /**
   * Decide several policies as one: all are consumed or none. On a standalone Redis one script does it
   * atomically. On a Cluster, the items of each slot are one atomic script, and slots are decided in the
   * order given: when a later slot refuses, what earlier slots took is given back (core's handler puts the
   * narrowest policies first, so a refused request holds quota only in its own caller's buckets, for a moment).
   * Keys from core put one caller's policies on one slot.
   */
  consumeAll(items: readonly ConsumeItem[], now?: number): Promise<Decision[]> {
    if (items.length === 0) return Promise.resolve([])
    const keys = items.map((item) => redisKey(this.prefix, item.key, item.algorithm.id))
    if (this.runner.isCluster) {
      const groups = slotGroups(keys)
      if (groups.length > 1) {
        const keyOfItem = new Map(items.map((item, i) => [item, keys[i]!]))
        return consumeInGroups({
          store: this,
          items,
          groups,
          consumeGroup: (group) =>
            this.consumeOneSlot(
              group,
              group.map((item) => keyOfItem.get(item)!),
              now,
            ),
          now,
        })
      }
    }
    return this.consumeOneSlot(items, keys, now)
  }

  /** Drop the block cache. The client is yours: the store never closes it. */
  close(): void {
    this.blocks?.clear()
    this.metrics?.close()
  }

  /** Decide items whose keys share one slot, with one script. */
  private consumeOneSlot(
    items: readonly ConsumeItem[],
    keys: readonly string[],
    now: number | undefined,
  ): Promise<Decision[]> {
    if (!this.circuit.allows()) return this.failing.decideAll(items, now)
    const args = consumeAllArgs({
      binary: this.runner.binary,
      now,
      grace: this.grace,
      items: items.map((item) => ({
        kind: item.algorithm.kind,
        cost: item.cost,
        params: this.prepare(item.algorithm).params,
      })),
    })
    const injected = now !== undefined
    const sentAt = injected ? now : performance.now()
    const sent = this.runner.run(CONSUME_ALL, keys.length, [...keys, ...args])
    return (this.metrics ? this.metrics.timed('consume_all', sent) : sent).then((settled) => {
      const replies = settled instanceof CallFailure ? undefined : (settled as unknown[])
      try {
        if (replies === undefined || !Array.isArray(replies) || replies.length !== items.length) {
          throw settled instanceof CallFailure
            ? settled
            : new TypeError('Unexpected reply from the consume-all script')
        }
        return items.map((item, i) => {
          const decision = parseReply(replies[i], item.algorithm)
          if (this.blocks && !decision.allowed) {
            this.blocks.add(keys[i]!, item.algorithm, item.cost, decision, sentAt, injected)
          }
          return decision as Decision
        })
      } catch (error) {
        const failure = error instanceof CallFailure ? error : new CallFailure(error, false, false)
        this.report('consumeAll', failure, items[0]!.key)
        return this.failing.decideAll(items, now)
      }
    })
  }

  private prepare(algorithm: Algorithm): Prepared {
    let prepared = this.prepared.get(algorithm)
    if (!prepared) {
      prepared = { script: SCRIPTS[algorithm.kind], params: scriptParams(algorithm) }
      this.prepared.set(algorithm, prepared)
    }
    return prepared
  }

  /** Run one key's script for `operation`. */
  private call(
    operation: Operation,
    rkey: string,
    algorithm: Algorithm,
    cost: number,
    now: number | undefined,
  ): Promise<Settled> {
    const { script, params } = this.prepare(algorithm)
    const args = singleArgs({ operation, binary: this.runner.binary, now, cost, grace: this.grace, params })
    const sent = this.runner.run(script, 1, [rkey, ...args])
    return this.metrics ? this.metrics.timed(operation, sent) : sent
  }

  /** A consume or peek through Redis; an error, a timeout or an unreadable reply takes the fail mode. */
  private decideOne(
    operation: 'consume' | 'peek',
    rkey: string,
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): Promise<RedisDecision> {
    return this.call(operation, rkey, algorithm, cost, now).then((settled) => {
      let failure: CallFailure
      if (settled instanceof CallFailure) {
        failure = settled
      } else {
        try {
          return parseReply(settled, algorithm)
        } catch (error) {
          failure = new CallFailure(error, false, false)
        }
      }
      this.report(operation, failure, key)
      return this.fallBack(operation, algorithm, key, cost, now)
    })
  }

  private fallBack(
    operation: 'consume' | 'peek',
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ): Promise<RedisDecision> {
    return this.failing.decide(operation, algorithm, key, cost, now) as Promise<RedisDecision>
  }

  /** Report a failure; a timeout or a connection error (anything but an error reply) opens the circuit. */
  private report(operation: RedisStoreErrorEvent['operation'], failure: CallFailure, key: string): void {
    if (failure.outage) this.circuit.trip()
    this.metrics?.failed(failure)
    if (!this.onError) return
    const error = failure.error instanceof Error ? failure.error : new Error(String(failure.error))
    try {
      this.onError(error, { operation, key, failMode: this.failMode, timedOut: failure.timedOut })
    } catch {
      // onError must not throw; a throwing hook must not turn a decision into a rejection.
    }
  }
}

/** Indices of `keys` grouped by Cluster slot, groups in the order of their first key. */
function slotGroups(keys: readonly string[]): number[][] {
  const bySlot = new Map<number, number[]>()
  keys.forEach((key, i) => {
    const slot = keySlot(key)
    const group = bySlot.get(slot)
    if (group) group.push(i)
    else bySlot.set(slot, [i])
  })
  return [...bySlot.values()]
}

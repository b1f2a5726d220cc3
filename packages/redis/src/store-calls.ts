import type { Algorithm } from '@floodgate/core'
import type { Settled, StoreMetrics } from '@floodgate/core/internal'
import { keySlot } from './redis-key.js'
import type { ScriptRunner } from './script-runner.js'
import { CONSUME_ALL, RELEASE, SCRIPTS, type Script } from './scripts/index.js'
import {
  consumeAllArgs,
  type ItemGroup,
  type Operation,
  type ScriptParams,
  scriptParams,
  singleArgs,
} from './wire.js'

/** An algorithm's script and its arguments, made once per store. */
export interface Prepared {
  readonly script: Script
  readonly params: ScriptParams
}

/**
 * A RedisStore's calls to its scripts, each one EVALSHA (timed for the metrics): one key's operation, or groups
 * of items on one slot (one request's policies, or the requests of one tick). Each algorithm's script and
 * parameters are looked up and encoded once.
 */
export class StoreCalls {
  private readonly prepared = new WeakMap<Algorithm, Prepared>()
  private readonly graceText: string

  constructor(
    private readonly runner: ScriptRunner,
    private readonly graceMs: number,
    private readonly metrics: StoreMetrics | undefined,
  ) {
    this.graceText = String(graceMs)
  }

  /** Whether the client is a Redis Cluster client. */
  get isCluster(): boolean {
    return this.runner.isCluster
  }

  /** Run one key's script for `operation`. */
  one(
    operation: Operation,
    rkey: string,
    algorithm: Algorithm,
    cost: number,
    now: number | undefined,
  ): Promise<Settled> {
    const { script, params } = this.prepare(algorithm)
    const args = singleArgs(rkey, operation, this.runner.binary, now, cost, this.graceText, params)
    // Timed on the call's deadline entry: no promise of its own.
    return this.runner.run(script, 1, args, this.metrics?.histogramOf(operation))
  }

  /**
   * Decide `groups` (`count` items in all, their keys on one slot), each group as one, in one call: a lone
   * item without a ban with its algorithm's one-key script (which defines no function: the cheapest call for
   * Redis), else with the several-keys script (which also checks and counts bans).
   */
  groups(groups: readonly ItemGroup[], count: number): Promise<Settled> {
    if (count === 1 && groups[0]!.banKeys === undefined) {
      const { items, keys, now } = groups[0]!
      return this.one('consume', keys[0]!, items[0]!.algorithm, items[0]!.cost, now)
    }
    const params: ScriptParams[] = new Array(count)
    let keys = count
    for (let g = 0, p = 0; g < groups.length; g++) {
      const { items, banKeys } = groups[g]!
      for (let i = 0; i < items.length; i++, p++) {
        params[p] = this.prepare(items[i]!.algorithm).params
        if (banKeys?.[i] !== undefined) keys++
      }
    }
    const args = consumeAllArgs(this.runner.binary, this.graceMs, groups, count, params)
    return this.runner.run(CONSUME_ALL, keys, args, this.metrics?.histogramOf('consume_all'))
  }

  /** Give back one lease's units at `rkey` (`lease`: `<lease>:<units>`), timed as a refund. */
  release(rkey: string, lease: string): Promise<Settled> {
    return this.runner.run(RELEASE, 1, [rkey, lease], this.metrics?.histogramOf('refund'))
  }

  /** DEL `rkey` (a reset), timed. */
  del(rkey: string): Promise<Settled> {
    return this.runner.del(rkey, this.metrics?.histogramOf('reset'))
  }

  /** `algorithm`'s script and encoded parameters (made on first use); throws when the store cannot run it. */
  prepare(algorithm: Algorithm): Prepared {
    let prepared = this.prepared.get(algorithm)
    if (!prepared) {
      prepared = { script: SCRIPTS[algorithm.kind], params: scriptParams(algorithm, this.graceMs) }
      this.prepared.set(algorithm, prepared)
    }
    return prepared
  }
}

/** Indices of `keys` grouped by Cluster slot, groups in the order of their first key. */
export function slotGroups(keys: readonly string[]): number[][] {
  const bySlot = new Map<number, number[]>()
  keys.forEach((key, i) => {
    const slot = keySlot(key)
    const group = bySlot.get(slot)
    if (group) group.push(i)
    else bySlot.set(slot, [i])
  })
  return [...bySlot.values()]
}

import type { Algorithm, ConsumeItem, Decision } from '@floodgate/core'
import type { RedisStore } from '../store.js'
import { type AllowanceParts, allowanceOf, nearLimit } from './allowance.js'
import type { DecisionClock } from './decision-clock.js'
import type { Fleet } from './fleet.js'
import type { ParsedSyncedOptions } from './options.js'
import type { SyncLoop } from './sync-loop.js'
import type { SyncStats } from './sync-stats.js'
import { type SyncedDecision, tagged } from './synced-decision.js'
import type { SyncedKey } from './synced-key.js'
import { nearEdge, windowStart } from './window-kinds.js'

/** What deciding from the allowance needs from its SyncedStore. */
export interface LocalDeciderParts {
  store: RedisStore
  syncEveryMs: number
  exactWithin: number
  offline: ParsedSyncedOptions['offline']
  fleet: Fleet
  loop: SyncLoop
  stats: SyncStats
  /** Which clock decisions run on (the limiter's or the server's), and how near a window's ends Redis decides. */
  clock: DecisionClock
  /** Decide from the start again (the key was reset or forgotten while a decision waited). */
  again: (
    algorithm: Algorithm,
    key: string,
    cost: number,
    now: number | undefined,
  ) => SyncedDecision | Promise<SyncedDecision>
}

/**
 * Decides requests on keys a process holds from their views and the process's allowance: locally while the
 * allowance covers them, through the RedisStore's script near the limit, refused until the next sync (or the
 * next window, offline) once this process's share is spent.
 */
export class LocalDecider {
  constructor(private readonly parts: LocalDeciderParts) {}

  /**
   * Decide from what `entry` knows; `online`: Redis is reachable and the key was read recently. `t` is the
   * decision time (`parts.clock.time(now)` unless the caller has it already).
   */
  decide(
    entry: SyncedKey,
    cost: number,
    now: number | undefined,
    online: boolean,
    t = this.parts.clock.time(now),
  ): SyncedDecision | Promise<SyncedDecision> {
    const { algorithm } = entry
    const { parts } = this
    if (!entry.queued) parts.loop.enqueue(entry)
    // Near either end of a window on the server's clock, this process cannot tell which window Redis is in: a
    // unit counted here in one window and there in the other would be missing from the total of one of them.
    if (online && nearEdge(t, entry.windowMs, parts.clock.edge(now)))
      return this.decideInRedis(entry, cost, now, t, true)
    const shares = this.sharesOf(online)
    if (entry.covers(cost, t, online, shares)) {
      // The allowance, as last computed in this window, still covers it.
      entry.rollTo(windowStart(t, entry.windowMs))
      const decision = algorithm.consume(entry.slab.data, entry.at, t, cost)
      if (decision.allowed) entry.admittedInBudget(cost)
      if (online) {
        parts.stats.local++
        return decision
      }
      parts.stats.offline++
      return tagged(decision, 'offline')
    }
    const source = online ? 'local' : 'offline'
    const { start, cap } = this.newBudget(entry, t, online)
    if (entry.unackedAt(start) + cost <= cap) {
      const decision = algorithm.consume(entry.slab.data, entry.at, t, cost)
      if (decision.allowed) entry.admitted(start, cost)
      parts.stats[source]++
      return tagged(decision, source)
    }
    const view = algorithm.peek(entry.slab.data, entry.at, t, cost)
    // Near the limit Redis decides; elsewhere the allowance is spent until the next sync.
    if (view.allowed && online && nearLimit(entry, t, cost, cap, parts.exactWithin)) {
      return this.decideInRedis(entry, cost, now, t)
    }
    parts.stats[source]++
    if (!view.allowed) return tagged(view, source)
    // The view has room but this process's share is spent: it grows again at the next sync (online) or in
    // the next window (offline).
    const retryAfterMs = online ? Math.ceil(parts.syncEveryMs) : Math.ceil(start + entry.windowMs - t)
    return tagged({ ...view, allowed: false, remaining: 0, retryAfterMs }, source)
  }

  /**
   * Every item (on `entries`, keys read and online, one each) decided locally as one, at time `t`, or undefined
   * when one of them is not covered by its allowance.
   */
  consumeAll(
    entries: readonly SyncedKey[],
    items: readonly ConsumeItem[],
    t: number,
    edge: number,
  ): Decision[] | undefined {
    if (entries.some((entry) => nearEdge(t, entry.windowMs, edge))) return undefined
    const starts = entries.map((entry) => windowStart(t, entry.windowMs))
    const fits = entries.every(
      (entry, i) =>
        entry.unackedAt(starts[i]!) + items[i]!.cost <=
        allowanceOf(entry, t, starts[i]!, this.allowanceParts(true)),
    )
    if (!fits) return undefined
    const peeks = entries.map((entry, i) =>
      entry.algorithm.peek(entry.slab.data, entry.at, t, items[i]!.cost),
    )
    for (const entry of entries) this.parts.loop.enqueue(entry)
    this.parts.stats.local += entries.length
    if (!peeks.every((d) => d.allowed)) return peeks.map((d) => tagged(d, 'local'))
    return entries.map((entry, i) => {
      const decision = entry.algorithm.consume(entry.slab.data, entry.at, t, items[i]!.cost)
      entry.admitted(starts[i]!, items[i]!.cost)
      return tagged(decision, 'local')
    })
  }

  /**
   * Make `entry`'s budget for the window it is in now, from the state a read has just brought back: its next
   * decision is then covered on the slab alone, as every decision after it is (the first one would otherwise
   * make the budget itself). The allowance only grows later in the window, so a budget made now never lets
   * through more than one made then. Only while decisions are made on the server's clock, which never runs
   * backwards: where the limiter passes times of its own, the next decision makes the budget at its own time.
   */
  prepare(entry: SyncedKey): void {
    const t = this.parts.clock.serverTime()
    if (t !== undefined) this.newBudget(entry, t, true)
  }

  /**
   * Make `entry`'s budget for the window `t` is in, from its allowance there, and move its view into that window;
   * returns the window's start and the budget's cap.
   */
  private newBudget(entry: SyncedKey, t: number, online: boolean): { start: number; cap: number } {
    const start = windowStart(t, entry.windowMs)
    const cap = allowanceOf(entry, t, start, this.allowanceParts(online))
    entry.setBudget({ start, cap, online, shares: this.sharesOf(online) })
    entry.rollTo(start)
    return { start, cap }
  }

  /** Give `cost` units back on `entry` at time `t`, sent with the next sync. */
  refund(entry: SyncedKey, cost: number, t: number): void {
    const start = windowStart(t, entry.windowMs)
    const { at } = entry
    const view = entry.slab.data
    const before = view[at] === start ? view[at + 1]! : 0
    entry.algorithm.refund(view, at, t, cost)
    const given = before - (view[at] === start ? view[at + 1]! : 0)
    if (given > 0) {
      entry.refunded(start, given)
      this.parts.loop.enqueue(entry)
    }
  }

  private allowanceParts(online: boolean): AllowanceParts {
    const { exactWithin, offline } = this.parts
    return { online, exactWithin, offline, shares: this.sharesOf(online) }
  }

  /**
   * What an allowance is divided by: online, the fleet's shares (Infinity until its count has settled, so Redis
   * decides); offline, the processes last counted.
   */
  private sharesOf(online: boolean): number {
    return online ? this.parts.fleet.shares : this.parts.fleet.processes
  }

  /**
   * Near the limit, or near either end of a window (`atEdge`): the RedisStore's script decides; when it cannot
   * (it rejects: Redis failed, timed out, or its circuit is open), the key is decided locally, offline, instead.
   */
  private decideInRedis(
    entry: SyncedKey,
    cost: number,
    now: number | undefined,
    t: number,
    atEdge = false,
  ): Promise<SyncedDecision> {
    const { algorithm } = entry
    const { stats } = this.parts
    stats.exact++
    // Sent behind a sync of this key still in flight, Redis decides it after that sync's read: the read
    // lands without it (see `SyncedKey.admittedInRedis`).
    const behind = entry.inFlight ? entry.sends : undefined
    return this.parts.store.consume(algorithm, entry.key, cost, now).then(
      (decision) => {
        if (entry.detached) return decision as SyncedDecision // reset or forgotten meanwhile: Redis decided
        if (!decision.allowed) return decision as SyncedDecision
        if (atEdge) {
          // Which window Redis counted it in is not known here: it is counted in the later of the two (the
          // earlier one is over, or all but), and Redis's decision is the answer.
          const later = windowStart(t + this.parts.clock.edge(now), entry.windowMs)
          entry.admittedInRedis(later, cost, behind)
          entry.kind.merge(entry.slab.data, entry.at, later, cost, entry.windowMs)
          return decision as SyncedDecision
        }
        const start = windowStart(t, entry.windowMs)
        entry.admittedInRedis(start, cost, behind)
        const local = algorithm.consume(entry.slab.data, entry.at, t, cost)
        if (!local.allowed) entry.kind.merge(entry.slab.data, entry.at, start, cost, entry.windowMs)
        return tagged(local.allowed ? local : decision, decision.source)
      },
      () => {
        stats.exact--
        return entry.detached
          ? this.parts.again(algorithm, entry.key, cost, now)
          : this.decide(entry, cost, now, false)
      },
    )
  }
}

import * as z from 'zod'
import { cachedClock } from '../clocks/cached-clock.js'
import type {
  Algorithm,
  BanRule,
  Clock,
  ConsumeItem,
  Decision,
  SettingsWatcher,
  Store,
  StoreSettings,
} from '../types.js'
import { parseOptions, positiveInt } from '../validate.js'
import { anyBan, BAN_STATE_SIZE, bannedDecision, bannedFor, banTtl, countRefusal } from './bans.js'
import { SlabTable } from './slab-table.js'

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * The most keys kept per algorithm (per policy). When a new key arrives at a full table, the store forgets
   * an expired key or else the one with the most quota left, among the 8 it has gone longest without looking at
   * (an approximation of least-recently-used eviction that never forgets an over-limit client before a
   * nearly-fresh one); that key starts over with a full quota. Size it above the number of clients active within one window.
   * @default 1_000_000
   * @example 100_000
   */
  maxKeys?: number
  /**
   * The time source, in ms, used when the limiter passes no time of its own.
   * @default `Date.now()` on each decision while decisions are sparse, a reading cached for at most a millisecond while they are dense (see `cachedClock`)
   * @example Date.now
   */
  clock?: Clock
}

const schema = z.strictObject({
  maxKeys: positiveInt().default(1_000_000),
  clock: z.custom<Clock>((v) => typeof v === 'function', { error: 'a function returning ms' }).optional(),
})

/**
 * Keys looked at by the expiry sweep once every 512 decisions (`SWEEP_MASK + 1`): enough to give memory back
 * over time at a cost of well under 1% of a decision. A full table also reuses expired keys' slots first.
 */
const SWEEP_BATCH = 8
const SWEEP_MASK = 511
/** The largest state `consumeAll` decides on a copy (a sliding log of limit 15); larger ones are peeked first. */
const MAX_COPIED_STATE = 16

/** One cached wall clock shared by every MemoryStore that is not given a clock. */
let sharedClock: Clock | undefined
const defaultClock = (): Clock => {
  sharedClock ??= cachedClock()
  return sharedClock
}

/**
 * The embedded store: state in this process's memory, decided synchronously (so same-tick requests are
 * counted exactly), bounded by `maxKeys` (see that option for which key goes), expired keys swept a few at a
 * time as decisions are made, with no timer. Per key it keeps a `Map` entry and `stateSize` numbers in a
 * flat buffer.
 *
 * @example
 * const limiter = createLimiter({ algorithm: gcra({ rate: 10 }), store: new MemoryStore({ maxKeys: 100_000 }) })
 */
export class MemoryStore implements Store {
  /** Every call answers at once: `consumeSync` and `peekSync` work on this store. */
  readonly synchronous = true
  private readonly tables = new Map<string, SlabTable>()
  /** Bans and the refusals counted toward them, by store key (see `Store.unban`). */
  private readonly bans = new Map<string, Float64Array>()
  private readonly maxKeys: number
  private readonly clock: Clock
  private lastAlgorithm: Algorithm | undefined
  private lastTable: SlabTable | undefined
  private decisions = 0
  /** The settings documents (runtime overrides), by name, with their watchers: in process, seen at once. */
  private readonly settings = new Map<string, { doc: StoreSettings; watchers: Set<SettingsWatcher> }>()
  /** Changes are seen at once: every limiter on this store is in this process. */
  readonly settingsIntervalMs = 0

  constructor(options: MemoryStoreOptions = {}) {
    const parsed = parseOptions(schema, options, 'MemoryStore')
    this.maxKeys = parsed.maxKeys
    this.clock = parsed.clock ?? defaultClock()
  }

  /** How many keys the store holds, over all algorithms (bans not counted). */
  get size(): number {
    let size = 0
    for (const table of this.tables.values()) size += table.size
    return size
  }

  consume(algorithm: Algorithm, key: string, cost: number, now = this.clock()): Decision {
    const table = this.table(algorithm)
    let slot = table.index.get(key)
    let decision: Decision
    if (slot === undefined) {
      decision = algorithm.peek(table.blank, 0, now, cost)
      if (decision.allowed) {
        slot = table.allocate(key, now)
        decision = algorithm.consume(table.data, slot * table.width, now, cost)
      }
    } else {
      decision = algorithm.consume(table.data, slot * table.width, now, cost)
    }
    if ((++this.decisions & SWEEP_MASK) === 0) table.sweep(now, SWEEP_BATCH)
    return decision
  }

  /**
   * Atomic over all items: all are consumed or none. Each is decided once, on a copy of its state; when all
   * allow, the copies are written back; at the first refusal nothing is written and every item is peeked.
   * (Synchronous, so no other decision can come between.) Items with a large state (a long sliding log) or
   * two items on one key are checked first and consumed after, as a copy would cost more than a second look.
   */
  consumeAll(items: readonly ConsumeItem[], now = this.clock()): Decision[] {
    return anyBan(items) ? this.consumeBanned(items, now) : this.decideAll(items, now)
  }

  /**
   * Lift the ban on `key` (a store key of an item with a `ban`) and forget the refusals counted toward one.
   * Its algorithms' state is left as it is.
   */
  unban(key: string): void {
    this.bans.delete(key)
  }

  /**
   * `consumeAll` for items of which some carry a ban (see `Store.unban`): a banned key refuses the request
   * (every banned item its ban's decision, the others peeked); else the items are decided as one, and a refusal
   * is counted toward each refusing item's ban, the `after`-th banning its key.
   */
  private consumeBanned(items: readonly ConsumeItem[], now: number): Decision[] {
    if (items.length === 1) {
      // One policy: its ban looked up, then a plain consume (a refused consume changes nothing).
      const { algorithm, key, cost, ban } = items[0]!
      const state = this.bans.size === 0 ? undefined : this.bans.get(key)
      if (state !== undefined && state[0]! > now) return [bannedDecision(algorithm, state[0]! - now, false)]
      const decision = this.consume(algorithm, key, cost, now)
      return [decision.allowed ? decision : this.counted(items[0]!, decision, ban!, now)]
    }
    let banned = false
    for (let i = 0; i < items.length && !banned; i++)
      banned = items[i]!.ban !== undefined && bannedFor(this.bans.get(items[i]!.key), now) > 0
    if (banned) {
      return items.map((item) => {
        const ms = item.ban === undefined ? 0 : bannedFor(this.bans.get(item.key), now)
        return ms > 0
          ? bannedDecision(item.algorithm, ms, false)
          : this.peek(item.algorithm, item.key, item.cost, now)
      })
    }
    const decisions = this.decideAll(items, now)
    for (let i = 0; i < items.length; i++) {
      const { ban } = items[i]!
      if (ban !== undefined && !decisions[i]!.allowed)
        decisions[i] = this.counted(items[i]!, decisions[i]!, ban, now)
    }
    return decisions
  }

  /** Count the refusal `decision` of `item` toward its ban: the decision, or the ban's when this one starts it. */
  private counted(item: ConsumeItem, decision: Decision, ban: BanRule, now: number): Decision {
    let state = this.bans.get(item.key)
    if (state === undefined) state = this.newBan(item.key)
    const started = countRefusal(state, ban, now)
    state[BAN_STATE_SIZE] = now + banTtl(state, ban, now)
    return started ? bannedDecision(item.algorithm, ban.forMs, true) : decision
  }

  /**
   * A fresh ban state for `key`, kept: at most `maxKeys` of them, the oldest dropped first (in the order they
   * were made, so a full table costs one deletion per new ban, never a scan: a flood of refused keys cannot make
   * each request walk the table).
   */
  private newBan(key: string): Float64Array {
    const bans = this.bans
    if (bans.size >= this.maxKeys) bans.delete(bans.keys().next().value!)
    // `until count start`, then when it is all zeros again.
    const state = new Float64Array(BAN_STATE_SIZE + 1)
    bans.set(key, state)
    return state
  }

  private decideAll(items: readonly ConsumeItem[], now: number): Decision[] {
    const n = items.length
    if (!this.copyable(items)) return this.peekThenConsume(items, now)
    const decisions: Decision[] = new Array(n)
    const tables = this.itemTables
    const slots = this.itemSlots
    for (let i = 0; i < n; i++) {
      const item = items[i]!
      const table = this.table(item.algorithm)
      const scratch = this.scratchFor(i)
      const slot = table.index.get(item.key)
      const width = table.width
      tables[i] = table
      slots[i] = slot ?? -1
      if (slot === undefined) scratch.fill(0, 0, width)
      else {
        const data = table.data
        for (let k = 0, at = slot * width; k < width; k++) scratch[k] = data[at + k]!
      }
      const decision = item.algorithm.consume(scratch, 0, now, item.cost)
      decisions[i] = decision
      if (!decision.allowed) return items.map((it) => this.peek(it.algorithm, it.key, it.cost, now))
    }
    for (let i = 0; i < n; i++) {
      const table = tables[i]!
      const scratch = this.scratches[i]!
      let slot = slots[i]!
      if (slot === -1) slot = table.allocate(items[i]!.key, now)
      const data = table.data
      for (let k = 0, at = slot * table.width; k < table.width; k++) data[at + k] = scratch[k]!
      tables[i] = undefined
    }
    this.decisions += n
    if ((this.decisions & SWEEP_MASK) < n) this.table(items[0]!.algorithm).sweep(now, SWEEP_BATCH)
    return decisions
  }

  /** Per item of a `consumeAll`, its table and slot: kept here so a decision allocates no arrays. */
  private readonly itemTables: (SlabTable | undefined)[] = []
  private readonly itemSlots: number[] = []
  private readonly scratches: Float64Array[] = []

  private scratchFor(i: number): Float64Array {
    let scratch = this.scratches[i]
    if (scratch === undefined) {
      scratch = new Float64Array(MAX_COPIED_STATE)
      this.scratches[i] = scratch
    }
    return scratch
  }

  /** Whether every item's state is small enough to copy, and no two items share a state. */
  private copyable(items: readonly ConsumeItem[]): boolean {
    for (let i = 0; i < items.length; i++) {
      const a = items[i]!
      if (a.algorithm.stateSize > MAX_COPIED_STATE) return false
      for (let j = 0; j < i; j++)
        if (items[j]!.key === a.key && items[j]!.algorithm.id === a.algorithm.id) return false
    }
    return true
  }

  private peekThenConsume(items: readonly ConsumeItem[], now: number): Decision[] {
    const decisions = items.map((item) => this.peek(item.algorithm, item.key, item.cost, now))
    if (decisions.every((decision) => decision.allowed)) {
      return items.map((item) => this.consume(item.algorithm, item.key, item.cost, now))
    }
    return decisions
  }

  peek(algorithm: Algorithm, key: string, cost: number, now = this.clock()): Decision {
    const table = this.table(algorithm)
    const slot = table.index.get(key)
    return slot === undefined
      ? algorithm.peek(table.blank, 0, now, cost)
      : algorithm.peek(table.data, slot * table.width, now, cost)
  }

  refund(algorithm: Algorithm, key: string, cost: number, now = this.clock()): void {
    const table = this.table(algorithm)
    const slot = table.index.get(key)
    if (slot === undefined) return
    algorithm.refund(table.data, slot * table.width, now, cost)
    if (algorithm.expiresAt(table.data, slot * table.width) <= now) table.remove(key)
  }

  /** Give back the units of `lease` (a `concurrency` decision's), if still held; see `Store.release`. */
  release(algorithm: Algorithm, key: string, lease: string, now = this.clock()): void {
    if (algorithm.release === undefined) return
    const table = this.table(algorithm)
    const slot = table.index.get(key)
    if (slot === undefined) return
    algorithm.release(table.data, slot * table.width, now, lease)
    if (algorithm.expiresAt(table.data, slot * table.width) <= now) table.remove(key)
  }

  /**
   * Spend `cost` units of `key` whatever the limit says (see `Algorithm.charge`): a settled cost above the
   * estimate. An algorithm without `charge` cannot settle costs: refused when the limiter is created.
   */
  charge(algorithm: Algorithm, key: string, cost: number, now = this.clock()): void {
    const charge = algorithm.charge
    if (charge === undefined || !(cost > 0)) return
    const table = this.table(algorithm)
    const slot = table.index.get(key) ?? table.allocate(key, now)
    charge(table.data, slot * table.width, now, cost)
    if (algorithm.expiresAt(table.data, slot * table.width) <= now) table.remove(key)
  }

  reset(algorithm: Algorithm, key: string): void {
    this.tables.get(algorithm.id)?.remove(key)
  }

  /** Drop expired keys now (they are also dropped a few at a time as decisions are made). */
  sweep(now = this.clock()): void {
    for (const table of this.tables.values()) table.sweep(now, table.size)
    for (const [key, state] of this.bans) if (state[BAN_STATE_SIZE]! <= now) this.bans.delete(key)
  }

  /** Forget every key, of every algorithm; the store stays usable (an app's tests call it between tests). */
  clear(): void {
    for (const table of this.tables.values()) table.clear()
    this.tables.clear()
    this.bans.clear()
    this.lastAlgorithm = undefined
    this.lastTable = undefined
  }

  close(): void {
    this.clear()
    for (const entry of this.settings.values()) entry.watchers.clear()
  }

  readSettings(name: string): StoreSettings {
    return this.settingsOf(name).doc
  }

  /** Set (or delete, with `undefined`) one field; every watcher of `name` is told at once. */
  writeSettings(name: string, field: string, value: string | undefined): StoreSettings {
    const entry = this.settingsOf(name)
    const fields = { ...entry.doc.fields }
    if (value === undefined) delete fields[field]
    else fields[field] = value
    entry.doc = { version: entry.doc.version + 1, fields }
    for (const watcher of entry.watchers) watcher.change(entry.doc)
    return entry.doc
  }

  watchSettings(name: string, watcher: SettingsWatcher): () => void {
    const entry = this.settingsOf(name)
    entry.watchers.add(watcher)
    watcher.change(entry.doc)
    return () => {
      entry.watchers.delete(watcher)
    }
  }

  private settingsOf(name: string): { doc: StoreSettings; watchers: Set<SettingsWatcher> } {
    let entry = this.settings.get(name)
    if (entry === undefined) {
      entry = { doc: { version: 0, fields: {} }, watchers: new Set() }
      this.settings.set(name, entry)
    }
    return entry
  }

  private table(algorithm: Algorithm): SlabTable {
    if (algorithm === this.lastAlgorithm) return this.lastTable!
    let table = this.tables.get(algorithm.id)
    if (!table) {
      table = new SlabTable(algorithm, this.maxKeys)
      this.tables.set(algorithm.id, table)
    }
    this.lastAlgorithm = algorithm
    this.lastTable = table
    return table
  }
}

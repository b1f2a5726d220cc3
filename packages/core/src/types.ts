/** Milliseconds since the epoch (or since any fixed origin), as a function. Tests pass a virtual clock. */
export type Clock = () => number

/** A value or a promise of it: stores may answer synchronously. */
export type Awaitable<T> = T | Promise<T>

/** The answer to one request against one policy. A denial is a value, never an exception. */
export interface Decision {
  /** Whether the request may proceed. */
  allowed: boolean
  /** The policy's quota (the capacity, for buckets). */
  limit: number
  /** Whole units left after this request; never below 0. */
  remaining: number
  /** Milliseconds until the policy is back to its full quota. */
  resetMs: number
  /**
   * 0 when allowed; otherwise milliseconds until a request of the same cost can pass, or `Infinity` when it
   * never can (its cost is above the policy's limit).
   */
  retryAfterMs: number
  /** 0 unless a shaping policy asks the caller to wait this long before proceeding. */
  delayMs: number
  /** The name of the policy that made this decision. */
  policy: string
  /**
   * Set on an allowed decision of a `concurrency` policy only: the id of the units this request now holds.
   * Give them back with the store's `release` (or the limiter's) when the request ends; a lease is given back
   * once, and a lease that already expired frees nothing.
   */
  lease?: string
  /**
   * Set only for an item with a `ban` ({@link ConsumeItem.ban}) whose key is banned: ms until the ban ends. The
   * decision is then a refusal (`allowed: false`, `remaining: 0`, `retryAfterMs` and `resetMs` equal to it)
   * and nothing was consumed. Absent (or 0) when the key is not banned.
   */
  bannedMs?: number
  /** `true` on the one refusal that started the ban (the `after`-th within `within`); absent otherwise. */
  bannedNow?: boolean
}

/**
 * A ban on a policy's keys, as a store runs it: after `after` refusals of one key within `withinMs`, the key
 * is refused for `forMs` (every request, whatever the policy would say, consuming nothing). Refusals are
 * counted in a window that opens at a key's first counted refusal and lasts `withinMs`; the `after`-th refusal
 * in it starts the ban (that refusal is already a banned decision, with `bannedNow`), and the count starts
 * again from zero. A banned request counts nothing.
 */
export interface BanRule {
  /** Refusals within `withinMs` that start a ban: a whole number >= 1. */
  readonly after: number
  /** The window refusals are counted in, in ms (> 0). */
  readonly withinMs: number
  /** How long a ban lasts, in ms (> 0). */
  readonly forMs: number
}

/** The algorithms Floodgate ships; a store may use this to pick its implementation (a Lua script, say). */
export type AlgorithmKind =
  | 'fixed-window'
  | 'sliding-window-log'
  | 'sliding-window-counter'
  | 'token-bucket'
  | 'leaky-bucket'
  | 'gcra'
  | 'calendar-quota'
  | 'concurrency'

/**
 * A rate-limiting algorithm: a small pure state machine.
 *
 * Its state is `stateSize` numbers at offset `at` of a `Float64Array`, and all zeros is the fresh state
 * (a full quota), so a store can keep millions of keys in one flat buffer. `consume` writes the state only
 * when it allows the request: a refused request never changes state.
 */
export interface Algorithm {
  readonly kind: AlgorithmKind
  /** Kind and parameters (`swc:100,60000`): algorithms with the same id share state in a store. */
  readonly id: string
  /** The quota reported in headers (`limit` for windows, `capacity` or `burst` for buckets). */
  readonly limit: number
  /** The window the quota applies to, in ms (for buckets: the time to refill from empty). */
  readonly windowMs: number
  /** How many numbers of state one key needs. */
  readonly stateSize: number
  /** The canonical parameters, all numbers in ms and units, as a Redis script takes them. */
  readonly params: Readonly<Record<string, number>>
  /**
   * A shaping bucket's bound on `delayMs` (`leakyBucket({ mode: 'shape', maxDelay })`). Stores ignore it: the
   * limiter and the HTTP handler refuse a decision that asks for a longer wait and give its units back.
   */
  readonly maxDelayMs?: number
  /** Decide a request of `cost` at time `now`; writes the state only when allowed. */
  consume(state: Float64Array, at: number, now: number, cost: number): Decision
  /** The decision a request of `cost` would get now; never writes. `remaining` is before the request. */
  peek(state: Float64Array, at: number, now: number, cost: number): Decision
  /** Give `cost` units back (never below an empty count). */
  refund(state: Float64Array, at: number, now: number, cost: number): void
  /**
   * Spend `cost` units whatever the limit says (a settled cost above the estimate): the state may go over the
   * limit, so that the key's next requests wait until it is back under. What "over" is depends on the
   * algorithm: a window's count goes above its limit (fixed window and calendar quota: the current window or
   * period only; sliding window counter: the current window); a bucket's level goes above its capacity and GCRA's
   * TAT beyond its tolerance (a debt that drains at the rate); the sliding log, which remembers at most `limit`
   * units, writes `min(cost, limit)` entries at `now` over its oldest ones (exact for every later wait, as the
   * entries it forgets are older than the ones it writes). Optional: an algorithm without it cannot settle costs.
   */
  charge?(state: Float64Array, at: number, now: number, cost: number): void
  /**
   * Give back the units of `lease` (an allowed decision's `lease`), if they are still held: an algorithm
   * whose units have identities has it (`concurrency`). A lease already given back or expired frees nothing.
   */
  release?(state: Float64Array, at: number, now: number, lease: string): void
  /** When the state becomes equal to the fresh state (all zeros), in ms; 0 when it already is. */
  expiresAt(state: Float64Array, at: number): number
}

/** One policy's part of a request, as a store sees it. */
export interface ConsumeItem {
  readonly algorithm: Algorithm
  /** The store key (see {@link Store} for its shape). */
  readonly key: string
  /** A cost > 0, already rounded to the cost precision (0.001). */
  readonly cost: number
  /**
   * The policy's ban, when it has one: the store checks the key's ban before deciding, and counts a refusal
   * toward it, in the same call (see {@link Store.unban}). Only `consumeAll` reads it.
   */
  readonly ban?: BanRule
}

/**
 * Where the algorithms' state lives. A third party can write one; `testStore` from `@floodgate/testing` (the
 * store conformance suite) tells whether it is right: see docs/testing.md.
 *
 * Keys: the limiter and the HTTP handler give a store keys of the form `scope{partition}rest`, where the
 * partition is the caller (a user, an address) encoded so it holds no brace and no lone surrogate: a store
 * that shards (Redis Cluster) keeps every key of one partition together, and a store that writes UTF-8 loses
 * nothing. A store must keep any two different key strings apart. `now` is passed only when the limiter was given a clock; otherwise the store
 * uses its own time source (the MemoryStore its `clock`, the RedisStore the Redis server's `TIME`).
 */
export interface Store {
  consume(algorithm: Algorithm, key: string, cost: number, now?: number): Awaitable<Decision>
  /**
   * Decide several policies as one: either every item is consumed, or none is. Optional: without it the
   * limiter consumes one by one and refunds the ones already taken when a later one refuses.
   */
  consumeAll?(items: readonly ConsumeItem[], now?: number): Awaitable<Decision[]>
  peek(algorithm: Algorithm, key: string, cost: number, now?: number): Awaitable<Decision>
  refund(algorithm: Algorithm, key: string, cost: number, now?: number): Awaitable<void>
  /**
   * Spend `cost` more units of `key`, whatever the limit says: the algorithm's `charge` (see
   * {@link Algorithm.charge}), which may take the key over its limit so that its next requests wait. The limiter
   * calls it to settle a request whose actual cost (the `settle` option, `req.rateLimit.settle(n)`) is above
   * what it charged up front; a cost below is given back with `refund`. Optional: a limiter with `settle`
   * refuses, at creation, a store without it.
   */
  charge?(algorithm: Algorithm, key: string, cost: number, now?: number): Awaitable<void>
  reset(algorithm: Algorithm, key: string): Awaitable<void>
  /**
   * Give back the units an allowed decision holds, by its `lease` (`concurrency`): exactly those units, once.
   * A lease already given back, or whose units expired (their holder crashed, say), frees nothing, even when
   * another request holds units of the same key now. Optional: a store without it cannot run `concurrency`
   * (the limiter and the middleware refuse such a policy at creation).
   */
  release?(algorithm: Algorithm, key: string, lease: string, now?: number): Awaitable<void>
  /**
   * Lift the ban on a store key (the key of an item with a `ban`) and forget the refusals counted toward one.
   * Optional: a store that has it keeps bans, and its `consumeAll` honours every item's {@link ConsumeItem.ban}
   * in the same call as the decision (atomically):
   *
   * 1. when an item's key is banned (its ban ends after `now`), the request is refused and nothing is consumed
   *    or counted: that item's decision is `{ allowed: false, remaining: 0, resetMs, retryAfterMs, bannedMs }`
   *    (all three the ms left of the ban), and every other item is peeked;
   * 2. else the items are decided as without bans; when the request is refused, each item with a ban whose
   *    own decision is a refusal counts one refusal (see {@link BanRule}), and the one that reaches `after`
   *    is banned from `now` for `forMs`: its decision becomes the banned one, with `bannedNow: true`.
   *
   * A ban is kept per store key, beside (not inside) any algorithm's state: `reset` leaves it, `clear` forgets
   * it. The limiter and the middleware refuse `ban` at creation on a store without `unban`.
   */
  unban?(key: string): Awaitable<void>
  /**
   * Forget every key this store holds, of every algorithm: each starts again with a full quota. Optional; an
   * app's tests call it between tests (`resetLimits(store)` from `@floodgate/testing`). The store stays open.
   */
  clear?(): Awaitable<void>
  close(): Awaitable<void>
  /**
   * Throw a `RateLimitConfigError` when this store cannot run `algorithm` (a store that counts windows only,
   * say). Optional: the limiter and the middleware call it once per policy when they are created, so that such a
   * policy fails at creation, never on a request.
   */
  checkAlgorithm?(algorithm: Algorithm): void
  /**
   * Answer every later call within `timeoutMs`, or reject: the limiter's `storeTimeout`, given when the limiter
   * is created. Optional: a store that bounds its own calls (and fails fast while its backend is known to be
   * down) implements it, and the limiter then starts no timer of its own; any other store's answers are raced
   * against a timer by the limiter. A store given several bounds (by several limiters) keeps the shortest.
   */
  answerWithin?(timeoutMs: number): void
  /**
   * `true` when every call answers with its value, never a promise (the MemoryStore): the limiter's
   * `consumeSync` and `peekSync` work on such a store only. Optional: a store without it is asynchronous.
   */
  readonly synchronous?: boolean
  /**
   * Read the settings document `name` (a limiter's runtime overrides): its fields and version. Optional, with
   * `writeSettings` and `watchSettings`: a store without them holds no settings (`overrides.set` says so).
   */
  readSettings?(name: string): Awaitable<StoreSettings>
  /** Set one field of the settings document `name` (`undefined` deletes it), bumping its version; the new document. */
  writeSettings?(name: string, field: string, value: string | undefined): Awaitable<StoreSettings>
  /**
   * Tell `watcher` the settings document `name` as it stands, then again each time its version changes: at once
   * in process (the MemoryStore), within {@link settingsIntervalMs} on a shared store. Returns a function that
   * stops the watch; closing the store stops every watch.
   */
  watchSettings?(name: string, watcher: SettingsWatcher): () => void
  /** The longest a change written by another server takes to reach a watch, in ms (0: at once). */
  readonly settingsIntervalMs?: number
}

/** A small document of settings shared by every server on one store: named fields, and a version that grows with every write. */
export interface StoreSettings {
  readonly version: number
  readonly fields: Readonly<Record<string, string>>
}

/** What a settings watch reports to (see {@link Store.watchSettings}). */
export interface SettingsWatcher {
  /** The document, first as it stands, then each time its version changes. */
  change(settings: StoreSettings): void
  /** A read failed; the watch goes on, and tries again after the interval. */
  error(error: unknown): void
}

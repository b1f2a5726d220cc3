import { type Algorithm, type Decision, RateLimitConfigError, type Store } from '@floodgate/core'
import { ipKey, keyValueText, parseIp, RATE_LIMIT_DEFAULTS, storeKey } from '@floodgate/core/internal'

// What an app's own tests need from the store its middleware decides on: a clean slate between tests, and
// the state of one client's limit, read by the key the middleware gives it.

/**
 * Forget every limit `store` holds, so that each test starts with every client's full quota. Call it in
 * `beforeEach` (or `afterEach`) with the store the app's middleware was given. The store must have `clear()`
 * (the MemoryStore has): otherwise this rejects with a `RateLimitConfigError` that says so.
 *
 * @example
 * const store = new MemoryStore()
 * app.use(rateLimit({ store, limit: 5, window: '1m' }))
 * beforeEach(() => resetLimits(store))
 */
export async function resetLimits(store: Store): Promise<void> {
  if (typeof store?.clear !== 'function') {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_OPTION',
      'resetLimits(store)',
      store,
      'a store with a clear() method (the MemoryStore has one; with another store, give each test a prefix of its own)',
    )
  }
  await store.clear()
}

/** Which limit {@link peekLimit} reads: the store and policy as the middleware was given them, and the client. */
export interface LimitOf {
  /**
   * The store the middleware was given.
   * @example store
   */
  store: Store
  /**
   * The policy's algorithm, with the parameters the middleware was given (an equal one: a fresh
   * `slidingWindowCounter({ limit: 5, window: '1m' })` reads what the short form `{ limit: 5, window: '1m' }` counts).
   * @example slidingWindowCounter({ limit: 5, window: '1m' })
   */
  algorithm: Algorithm
  /**
   * The policy's name: its `name` option, else the name of its key (`'ip'`, `'user'`, `'global'`).
   * @default 'ip' (the short form's)
   * @example 'user'
   */
  policy?: string
  /**
   * The middleware's `prefix` option.
   * @default '' (none)
   * @example 'api'
   */
  prefix?: string
  /**
   * The client: its address as the framework reports it (for a policy keyed by `'ip'`), the user id the
   * `user` option returns (keyed by `'user'`), the value a key function returns, or `'global'`.
   * @example { ip: '127.0.0.1' }
   * @example { user: 'alice' }
   */
  client: { ip: string } | { user: string | number } | { key: string | number } | 'global'
  /**
   * The middleware's `ipv6Subnet` option: an IPv6 client is keyed by this prefix of its address.
   * @default 64
   * @example false
   */
  ipv6Subnet?: number | false
  /**
   * The time to read at, in ms (the middleware's virtual clock, in a test that gives it one).
   * @default the store's own clock
   * @example clock.now()
   */
  now?: number
}

/** The caller part of a store key, as the middleware builds it for a policy keyed by one part. */
function callerPart(client: LimitOf['client'], ipv6Subnet: number | false): string {
  if (client === 'global') return 'global'
  if ('ip' in client) {
    const parsed = parseIp(client.ip)
    if (!parsed) {
      throw new RateLimitConfigError(
        'ERR_FLOODGATE_INVALID_KEY',
        'peekLimit.client.ip',
        client.ip,
        "a client address ('203.0.113.7', '2001:db8::1')",
      )
    }
    return `ip:${ipKey(parsed, ipv6Subnet === false ? 128 : ipv6Subnet)}`
  }
  const [kind, value] = 'user' in client ? ['user', client.user] : ['key', client.key]
  const text = keyValueText(value)
  if (typeof text !== 'string') {
    throw new RateLimitConfigError(
      'ERR_FLOODGATE_INVALID_KEY',
      `peekLimit.client.${kind}`,
      value,
      'a non-empty string or a finite number',
    )
  }
  return `${kind}:${text}`
}

/**
 * The state of one client's limit, as the middleware counts it: the decision its next request of cost 1
 * would get (`remaining` before it), read without spending anything. For a policy keyed by one part
 * (`'ip'`, `'user'`, `'global'` or a key function).
 *
 * @example
 * await request(app).get('/').expect(200)
 * const state = await peekLimit({ store, algorithm: slidingWindowCounter({ limit: 5, window: '1m' }), client: { ip: '127.0.0.1' } })
 * expect(state.remaining).toBe(4)
 */
export async function peekLimit(limit: LimitOf): Promise<Decision> {
  const { key: policy, prefix, ipv6Subnet } = RATE_LIMIT_DEFAULTS
  const scope = `${(limit.prefix ?? prefix) === '' ? '' : `${limit.prefix}:`}${limit.policy ?? policy}|`
  const key = storeKey(scope, callerPart(limit.client, limit.ipv6Subnet ?? ipv6Subnet))
  return limit.store.peek(limit.algorithm, key, 1, limit.now)
}

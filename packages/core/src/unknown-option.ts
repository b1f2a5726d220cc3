/**
 * What an unknown option name most likely meant: another library's name for a Floodgate option (most people
 * arrive from express-rate-limit, @fastify/rate-limit, koa-ratelimit, rate-limiter-flexible or
 * @nestjs/throttler, with their options in their fingers), or a known option misspelt.
 */

interface PeerOption {
  /** Whose name it is, as the hint says it: `express-rate-limit's`. */
  from: string
  /** The Floodgate option it maps to; the hint is given only where that option is known. */
  to: string
  /** How to write it here, after "here it is". */
  here: string
}

const WINDOW = "`window: '1m'` or a number of ms"
const CAPACITY = '`capacity` (the burst a bucket holds)'
const KEY = "`key: (req) => ...`, or a built-in key: 'ip', 'user', 'endpoint', 'global'"
const PREFIX = '`prefix` (and a `RedisStore` has its own `prefix`)'

/** Other libraries' option names, each with the Floodgate options it may mean, first match wins. */
const PEER_OPTIONS: Record<string, readonly PeerOption[]> = {
  windowMs: [{ from: "express-rate-limit's", to: 'window', here: WINDOW }],
  max: [
    { from: "express-rate-limit's and @fastify/rate-limit's", to: 'limit', here: '`limit`' },
    { from: "express-rate-limit's and @fastify/rate-limit's", to: 'capacity', here: CAPACITY },
  ],
  timeWindow: [
    {
      from: "@fastify/rate-limit's",
      to: 'window',
      here: "`window: '1m'` or a number of ms (strings are '10s', '1m', '1h', '1d', not '1 minute')",
    },
  ],
  keyGenerator: [{ from: "express-rate-limit's and @fastify/rate-limit's", to: 'key', here: KEY }],
  standardHeaders: [
    {
      from: "express-rate-limit's",
      to: 'headers',
      here: "`headers: 'draft-6'` (the default), 'draft-7' or 'draft-8'",
    },
  ],
  legacyHeaders: [
    {
      from: "express-rate-limit's",
      to: 'headers',
      here: "`headers: 'legacy'`, or `['draft-6', 'legacy']` for both",
    },
  ],
  identifier: [{ from: "express-rate-limit's", to: 'name', here: '`name`' }],
  passOnStoreError: [
    { from: "express-rate-limit's", to: 'failMode', here: "`failMode: 'open'` (the default) or 'closed'" },
  ],
  points: [
    { from: "rate-limiter-flexible's", to: 'limit', here: '`limit`' },
    { from: "rate-limiter-flexible's", to: 'capacity', here: CAPACITY },
  ],
  duration: [
    { from: "rate-limiter-flexible's (in seconds) and koa-ratelimit's", to: 'window', here: WINDOW },
    {
      from: "rate-limiter-flexible's (in seconds)",
      to: 'interval',
      here: "`interval: '1s'` or a number of ms",
    },
  ],
  blockDuration: [
    {
      from: "rate-limiter-flexible's and @nestjs/throttler's",
      to: 'limits',
      here: 'a second, longer policy in `limits` (say 1000 a day), since a refusal never extends a window',
    },
  ],
  keyPrefix: [{ from: "rate-limiter-flexible's", to: 'prefix', here: PREFIX }],
  storeClient: [
    {
      from: "rate-limiter-flexible's",
      to: 'store',
      here: '`store: new RedisStore({ client })` from @floodgate/redis',
    },
  ],
  ttl: [{ from: "@nestjs/throttler's", to: 'window', here: WINDOW }],
  getTracker: [{ from: "@nestjs/throttler's", to: 'key', here: KEY }],
  skipIf: [{ from: "@nestjs/throttler's", to: 'skip', here: '`skip: (req) => boolean`' }],
  errorResponseBuilder: [
    {
      from: "@fastify/rate-limit's",
      to: 'handler',
      here: '`handler: (req, outcome, info) => ({ status, body, contentType, headers })`, or just `message`',
    },
  ],
  onExceeded: [
    { from: "@fastify/rate-limit's", to: 'onLimited', here: '`onLimited: (req, outcome) => void`' },
  ],
  skipOnError: [
    { from: "@fastify/rate-limit's", to: 'failMode', here: "`failMode: 'open'` (the default) or 'closed'" },
  ],
  nameSpace: [{ from: "@fastify/rate-limit's", to: 'prefix', here: PREFIX }],
  redis: [
    {
      from: "@fastify/rate-limit's",
      to: 'store',
      here: '`store: new RedisStore({ client })` from @floodgate/redis',
    },
  ],
  cache: [{ from: "@fastify/rate-limit's", to: 'store', here: '`store: new MemoryStore({ maxKeys })`' }],
  groupId: [
    {
      from: "@fastify/rate-limit's",
      to: 'prefix',
      here: '`prefix`: limits that name the same one share counters',
    },
  ],
  whitelist: [
    {
      from: "koa-ratelimit's",
      to: 'allowList',
      here: "`allowList: ['10.0.0.0/8', ...]` (addresses and CIDR ranges)",
    },
  ],
  blacklist: [
    {
      from: "koa-ratelimit's",
      to: 'denyList',
      here: "`denyList: ['203.0.113.0/24', ...]` (addresses and CIDR ranges, refused with 403)",
    },
  ],
  id: [{ from: "koa-ratelimit's", to: 'key', here: KEY }],
  errorMessage: [{ from: "koa-ratelimit's", to: 'message', here: '`message`' }],
  disableHeader: [{ from: "koa-ratelimit's", to: 'headers', here: '`headers: false`' }],
  limiter: [
    {
      from: "@upstash/ratelimit's",
      to: 'algorithm',
      here: '`algorithm: slidingWindowCounter({ limit, window })`',
    },
  ],
}

/** Edit distance between two strings (insertions, deletions, substitutions and swaps of neighbours). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = rows[i]!
      const substitution = rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      row[j] = Math.min(rows[i - 1]![j]! + 1, row[j - 1]! + 1, substitution)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        row[j] = Math.min(row[j]!, rows[i - 2]![j - 2]! + 1)
      }
    }
  }
  return rows[a.length]![b.length]!
}

/** The known option closest to `name` (ignoring case), when it is close enough to be a slip of the keys. */
export function nearestOption(name: string, known: readonly string[]): string | undefined {
  const lower = name.toLowerCase()
  let best: string | undefined
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1
  for (const option of known) {
    const d = distance(lower, option.toLowerCase())
    if (d < bestDistance) {
      best = option
      bestDistance = d
    }
  }
  return best
}

/**
 * A sentence that says what an unknown option `name` probably meant among the `known` options: another
 * library's name with its Floodgate equivalent, or the nearest known name. `undefined` when there is no good
 * guess.
 *
 * @example unknownOptionHint('windowMs', ['limit', 'window']) // "`windowMs` is express-rate-limit's; here it is `window: '1m'` or a number of ms."
 */
export function unknownOptionHint(name: string, known: readonly string[]): string | undefined {
  const peer = Object.hasOwn(PEER_OPTIONS, name)
    ? PEER_OPTIONS[name]!.find((option) => known.includes(option.to))
    : undefined
  if (peer) return `\`${name}\` is ${peer.from}; here it is ${peer.here}.`
  const nearest = nearestOption(name, known)
  return nearest === undefined ? undefined : `Did you mean \`${nearest}\`?`
}

import { FAILURE_DEFAULTS } from '../../failure-policy.js'

/**
 * The default of every option that has a literal one, written once: the schema applies them, TSDoc
 * `@default` tags and the options table in `docs/options.md` are checked against them by a test. Defaults
 * that are made rather than written (the store, the algorithm, the message) are documented where they are made.
 */
export const RATE_LIMIT_DEFAULTS = {
  limit: 100,
  window: '1m',
  key: 'ip',
  prefix: '',
  headers: 'draft-6',
  cost: 1,
  allowList: [] as readonly string[],
  denyList: [] as readonly string[],
  ipv6Subnet: 64,
  dryRun: false,
  failMode: FAILURE_DEFAULTS.failMode,
  storeTimeout: FAILURE_DEFAULTS.storeTimeout,
  skipFailedRequests: false,
  skipSuccessfulRequests: false,
  statusCode: 429,
  format: 'json',
  warnings: true,
  planTimeout: '1s',
  planCache: { maxKeys: 10_000, ttl: '1m' },
} as const

import type { MetricDefinition } from './sink.js'

/** The outcomes of a request, as `floodgate_requests_total` labels them. */
export const REQUEST_OUTCOMES = [
  'allowed',
  'limited',
  'dry_run_limited',
  'skipped',
  'denied',
  'banned',
  'no_plan',
  'error',
] as const
export type RequestOutcome = (typeof REQUEST_OUTCOMES)[number]

/** The outcomes of one policy's decision, as `floodgate_decisions_total` labels them. */
export const DECISION_OUTCOMES = ['allowed', 'limited', 'dry_run_limited'] as const
export type DecisionOutcome = (typeof DECISION_OUTCOMES)[number]

/** What a store call was for, as `floodgate_store_duration_seconds` labels it. */
export type StoreOperation =
  | 'consume'
  | 'consume_all'
  | 'peek'
  | 'refund'
  | 'charge'
  | 'reset'
  | 'sweep'
  | 'sync'

/** How a store call failed: its time bound passed, the backend was unreachable, or it answered an error (or nonsense). */
export const STORE_ERROR_KINDS = ['timeout', 'connection', 'reply'] as const
export type StoreErrorKind = (typeof STORE_ERROR_KINDS)[number]

/** Round trips from a tenth of a millisecond to the seconds a timeout takes. */
const STORE_BUCKETS = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
]
/** Waits from a millisecond to half a minute (a queue's `maxWait` is 10 s unless set). */
const WAIT_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/**
 * Every metric Floodgate reports, by the name its code uses. Names and labels are stable: a change is a
 * breaking change. `docs/metrics.md` describes each, with what to alert on.
 */
export const METRICS = {
  requests: {
    kind: 'counter',
    name: 'floodgate.requests',
    prometheusName: 'floodgate_requests_total',
    unit: '{request}',
    description:
      'Requests a limiter handled, by outcome: allowed, limited (refused), dry_run_limited (refused in dry run and let through), skipped (skip, allowList), denied (denyList, deny: 403), banned (a policy ban: 403), no_plan (no usage plan: 401 or 403), error (not decided: the store failed or timed out, the client address was unknown, a plan lookup failed).',
    labels: ['outcome'],
  },
  decisions: {
    kind: 'counter',
    name: 'floodgate.decisions',
    prometheusName: 'floodgate_decisions_total',
    unit: '{decision}',
    description:
      "Each policy's decisions, by outcome: allowed, limited, dry_run_limited. A request decided by several policies counts once in each.",
    labels: ['policy', 'outcome'],
  },
  nearLimit: {
    kind: 'counter',
    name: 'floodgate.near_limit',
    prometheusName: 'floodgate_near_limit_total',
    unit: '{decision}',
    description:
      "Allowed decisions that left less than the near-limit share of the policy's limit (a fifth, unless the sink sets nearLimit).",
    labels: ['policy'],
  },
  quotaRefusals: {
    kind: 'counter',
    name: 'floodgate.quota.refusals',
    prometheusName: 'floodgate_quota_refusals_total',
    unit: '{request}',
    description: "Requests refused because their usage plan's quota was used up (429 quota_exceeded).",
    labels: ['plan'],
  },
  storeDuration: {
    kind: 'histogram',
    name: 'floodgate.store.duration',
    prometheusName: 'floodgate_store_duration_seconds',
    unit: 's',
    description:
      "How long each call to the store's backend took, until its answer or its time bound, failures included.",
    labels: ['store', 'operation'],
    buckets: STORE_BUCKETS,
  },
  storeErrors: {
    kind: 'counter',
    name: 'floodgate.store.errors',
    prometheusName: 'floodgate_store_errors_total',
    unit: '{error}',
    description:
      "Failed calls to the store's backend, by kind: timeout (its time bound passed), connection (unreachable), reply (an error reply, or one that could not be read).",
    labels: ['store', 'kind'],
  },
  failMode: {
    kind: 'counter',
    name: 'floodgate.fail_mode',
    prometheusName: 'floodgate_fail_mode_total',
    unit: '{decision}',
    description:
      "Decisions the limiter's failMode took because its store could not answer (it failed, timed out, or its circuit was open), by mode: open (allowed), closed (refused), fallback (the fallback store decided).",
    labels: ['mode'],
  },
  circuitOpen: {
    kind: 'gauge',
    name: 'floodgate.circuit.open',
    prometheusName: 'floodgate_circuit_open',
    unit: '{circuit}',
    description:
      "1 while the store's circuit is open (its backend failed: calls fail at once, sending nothing, and the limiter's failMode decides), else 0.",
    labels: ['store'],
  },
  blockCacheHits: {
    kind: 'counter',
    name: 'floodgate.block_cache.hits',
    prometheusName: 'floodgate_block_cache_hits_total',
    unit: '{decision}',
    description: "Refusals answered from the store's block cache, without a round trip.",
    labels: ['store'],
  },
  queueDepth: {
    kind: 'gauge',
    name: 'floodgate.queue.depth',
    prometheusName: 'floodgate_queue_depth',
    unit: '{request}',
    description: 'Requests waiting in each queue of a priority queue.',
    labels: ['queue'],
  },
  queueWait: {
    kind: 'histogram',
    name: 'floodgate.queue.wait',
    prometheusName: 'floodgate_queue_wait_seconds',
    unit: 's',
    description:
      'How long each request let in by a priority queue waited for its place (0 when let in at once).',
    labels: ['queue'],
    buckets: WAIT_BUCKETS,
  },
  queueRefusals: {
    kind: 'counter',
    name: 'floodgate.queue.refusals',
    prometheusName: 'floodgate_queue_refusals_total',
    unit: '{request}',
    description:
      'Requests a priority queue answered instead of serving, by reason: full (429), timeout (waited maxWait: 503).',
    labels: ['queue', 'reason'],
  },
  shed: {
    kind: 'counter',
    name: 'floodgate.shed',
    prometheusName: 'floodgate_shed_total',
    unit: '{request}',
    description:
      "Requests a load shedder answered 503, by priority class and cause: in_flight (the class's share of maxInFlight was in use), event_loop_delay (the delay had reached the class).",
    labels: ['priority', 'cause'],
  },
} as const satisfies Record<string, MetricDefinition>

/** The name a metric has in {@link METRICS}. */
export type MetricId = keyof typeof METRICS

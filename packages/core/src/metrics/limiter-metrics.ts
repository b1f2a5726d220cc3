import type { Outcome } from '../http/outcome.js'
import { METRICS, REQUEST_OUTCOMES, type RequestOutcome } from './catalog.js'
import { type BoundCounter, guardedSink, type MetricsSink } from './sink.js'

/** The near-limit share when the sink sets none: an allowed decision that left less than a fifth of its limit. */
export const DEFAULT_NEAR_LIMIT = 0.2

/** The name a usage plan gives its quota policy: a refusal by it is a quota refusal. */
const QUOTA_POLICY = 'quota'

/** The outcome of a request, as `floodgate_requests_total` labels it. Pure. */
export function requestOutcome(outcome: Outcome): RequestOutcome {
  if (outcome.skipped) return 'skipped'
  if (outcome.denied) return 'denied'
  if (outcome.banned && outcome.kind === 'answer') return 'banned'
  if (outcome.limited) return outcome.kind === 'pass' ? 'dry_run_limited' : 'limited'
  // Every decided request has a decision per policy; one without any was answered before the policies.
  if (outcome.decisions.length === 0) return outcome.error === undefined ? 'no_plan' : 'error'
  return 'allowed'
}

/** One policy's instruments, made when the limiter first decides a request with it. */
interface PolicyInstruments {
  readonly allowed: BoundCounter
  readonly limited: BoundCounter
  readonly dryRunLimited: BoundCounter
  readonly near: BoundCounter
}

/** Records a limiter's outcome. Never throws: a failing sink must not fail a request. */
export type OutcomeRecorder = (outcome: Outcome) => void

/**
 * Compile what a limiter reports, once, when it is created: the request outcomes and each plan's quota
 * refusals now (so their series start at 0), each policy's counters when it first decides. Recording an
 * outcome then builds nothing: it adds to instruments already made.
 */
export function compileLimiterMetrics(given: MetricsSink, plans: readonly string[]): OutcomeRecorder {
  const sink = guardedSink(given)
  const share = sink.nearLimit ?? DEFAULT_NEAR_LIMIT
  const requests = Object.fromEntries(
    REQUEST_OUTCOMES.map((outcome) => [outcome, sink.counter(METRICS.requests, { outcome })]),
  ) as Record<RequestOutcome, BoundCounter>
  const quota = new Map(plans.map((plan) => [plan, sink.counter(METRICS.quotaRefusals, { plan })]))
  const policies = new Map<string, PolicyInstruments>()
  const instrumentsOf = (policy: string): PolicyInstruments => {
    let made = policies.get(policy)
    if (made === undefined) {
      const decided = (outcome: string) => sink.counter(METRICS.decisions, { policy, outcome })
      made = {
        allowed: decided('allowed'),
        limited: decided('limited'),
        dryRunLimited: decided('dry_run_limited'),
        near: sink.counter(METRICS.nearLimit, { policy }),
      }
      policies.set(policy, made)
    }
    return made
  }

  function record(outcome: Outcome): void {
    requests[requestOutcome(outcome)].add(1)
    const { decisions } = outcome
    for (let i = 0; i < decisions.length; i++) {
      const d = decisions[i]!
      const counters = instrumentsOf(d.policy)
      if (d.allowed) {
        counters.allowed.add(1)
        if (d.remaining < share * d.limit) counters.near.add(1)
      } else {
        ;(outcome.kind === 'pass' ? counters.dryRunLimited : counters.limited).add(1)
      }
    }
    if (
      outcome.kind === 'answer' &&
      outcome.plan !== undefined &&
      outcome.decision?.policy === QUOTA_POLICY
    ) {
      quota.get(outcome.plan)?.add(1)
    }
  }

  return (outcome) => {
    try {
      record(outcome)
    } catch {
      // A failing sink must not fail the request, nor reject anything.
    }
  }
}

import { mostRestrictiveIndex } from '../consume-all.js'
import type { ConsumeItem, Decision } from '../types.js'
import { callAppFunction, FunctionFailure } from './app-functions.js'
import { type Outcome, passedOutcome } from './outcome.js'
import type { PlanOfRequest } from './plans.js'
import type { PolicySet } from './policy-sets.js'
import type { Refunds } from './refunds.js'
import type { RefusalBuilder } from './refusal.js'
import type { RefusalHooks } from './refusal-hooks.js'
import type { Reporter } from './report.js'
import type { RequestInfo } from './request-info.js'

/** The items a request spent (cost > 0), to give back on a refund; the array itself when all did. */
function spent(items: ConsumeItem[]): ConsumeItem[] | undefined {
  let free = 0
  for (let i = 0; i < items.length; i++) if (items[i]!.cost === 0) free++
  if (free === 0) return items
  return free === items.length ? undefined : items.filter((item) => item.cost > 0)
}

/**
 * `outcome` once the `sleep` of its delay is over; at once when `sleep` failed (reported: the request is not held
 * back any longer). A function of its own: a closure made in `finish` would make every call of it allocate a
 * context, shaped or not.
 */
function after<N>(
  sleep: (ms: number) => Promise<void>,
  delayMs: number,
  outcome: Outcome,
  info: RequestInfo<N>,
  report: Reporter<N>,
): Outcome | Promise<Outcome> {
  const settled = (waited: unknown) => {
    if (waited instanceof FunctionFailure) report(waited.error, info)
    return outcome
  }
  const wait = callAppFunction('sleep', () => sleep(delayMs), info)
  return wait instanceof Promise ? wait.then(settled) : settled(wait)
}

/** Turns a request's decisions into its outcome: the headers, then a pass, a shadow refusal or a refusal. */
export type Finish<N> = (
  raw: Decision | Decision[],
  set: PolicySet<N>,
  items: ConsumeItem[],
  info: RequestInfo<N>,
  plan: PlanOfRequest | undefined,
) => Outcome | Promise<Outcome>

const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Compile how a limiter finishes a decided request. */
export function compileFinish<N>(parts: {
  refuse: RefusalBuilder
  hooks: RefusalHooks<N>
  refunds: Refunds
  /** How a shaped request waits its `delayMs` (the `sleep` option); a timer when not given. */
  sleep: ((ms: number) => Promise<void>) | undefined
  clock: (() => number) | undefined
  dryRun: boolean
  report: Reporter<N>
}): Finish<N> {
  const { refuse, hooks, refunds, clock, dryRun, report } = parts
  const sleep = parts.sleep ?? timerSleep
  return function finish(
    raw: Decision | Decision[],
    set: PolicySet<N>,
    items: ConsumeItem[],
    info: RequestInfo<N>,
    plan: PlanOfRequest | undefined,
  ): Outcome | Promise<Outcome> {
    const { policies, writeHeaders } = set
    const count = policies.length
    const decisions = Array.isArray(raw) ? raw : [raw]
    let delayMs = 0
    for (let i = 0; i < count; i++) {
      const d = decisions[i]!
      d.policy = policies[i]!.name
      if (d.delayMs > delayMs) delayMs = d.delayMs
    }
    const chosen = mostRestrictiveIndex(decisions)
    const decision = decisions[chosen]!
    const headers: Record<string, string> = {}
    if (writeHeaders)
      writeHeaders(headers, decisions, chosen, set.needsNow ? (clock ? clock() : Date.now()) : 0)
    const planName = plan?.plan
    if (decision.allowed) {
      const passed = passedOutcome({
        headers,
        decisions,
        decision,
        delayMs,
        limited: false,
        items: spent(items),
        owner: refunds,
        plan: planName,
      })
      return delayMs > 0 ? after(sleep, delayMs, passed, info, report) : passed
    }
    if (dryRun) {
      const shadow = passedOutcome({
        headers,
        decisions,
        decision,
        delayMs: 0,
        limited: true,
        items: undefined,
        owner: undefined,
        plan: planName,
      })
      hooks.limited(shadow, info)
      return shadow
    }
    const message = hooks.messageOf(info, decision)
    const quota = policies[chosen]!.role === 'quota'
    const cost = items[chosen]!.cost
    const refused = refuse({ headers, decisions, chosen, cost, message, quota, plan: planName })
    hooks.limited(refused, info)
    return hooks.customize(refused, info)
  }
}

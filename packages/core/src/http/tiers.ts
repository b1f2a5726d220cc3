import { RateLimitConfigError } from '../errors.js'
import type { Algorithm } from '../types.js'

/** How much an algorithm lets through: its sustained rate (units per second) and its burst (units at once). */
export interface Throughput {
  perSecond: number
  burst: number
}

/**
 * An algorithm's sustained rate and burst: a window's limit per window (and the limit at once), a bucket's
 * refill or leak rate (and its capacity), GCRA's rate (and its burst), a quota's limit per nominal period.
 */
export function throughputOf(algorithm: Algorithm): Throughput {
  const p = algorithm.params
  switch (algorithm.kind) {
    case 'token-bucket':
    case 'leaky-bucket':
      return { perSecond: (p.rate! / p.intervalMs!) * 1000, burst: p.capacity! }
    case 'gcra':
      return { perSecond: 1000 / p.emissionMs!, burst: p.burst! }
    default:
      return { perSecond: (algorithm.limit / algorithm.windowMs) * 1000, burst: algorithm.limit }
  }
}

const RELATIVE_SLACK = 1e-9
const amounts = (t: Throughput) => `${Number(t.perSecond.toPrecision(6))} a second, ${t.burst} at once`

/**
 * Check that `inner` is no looser than `outer`, in rate and in burst: the gateway rule, "a stage limit can
 * only be tighter than the account limit". Throws a `RateLimitConfigError` naming both.
 */
export function checkTighter(parts: {
  inner: { name: string; algorithm: Algorithm; option: string }
  outer: { name: string; algorithm: Algorithm; option: string }
}): void {
  const { inner, outer } = parts
  const a = throughputOf(inner.algorithm)
  const b = throughputOf(outer.algorithm)
  if (a.perSecond <= b.perSecond * (1 + RELATIVE_SLACK) && a.burst <= b.burst) return
  throw new RateLimitConfigError(
    'ERR_FLOODGATE_TIER_NOT_TIGHTER',
    inner.option,
    `${inner.name}: ${amounts(a)}`,
    `no looser than '${outer.name}' (${amounts(b)}) in \`${outer.option}\`: a tier can only be tighter than the one before it`,
  )
}

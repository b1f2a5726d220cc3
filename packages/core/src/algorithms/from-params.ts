import { RateLimitConfigError } from '../errors.js'
import type { Algorithm, AlgorithmKind } from '../types.js'
import { calendarQuota } from './calendar-quota.js'
import { fixedWindow } from './fixed-window.js'
import { gcra } from './gcra.js'
import { leakyBucket } from './leaky-bucket.js'
import { slidingWindowCounter } from './sliding-window-counter.js'
import { slidingWindowLog } from './sliding-window-log.js'
import { tokenBucket } from './token-bucket.js'

/** An algorithm as a store keeps it: its kind and canonical parameters (`algorithm.kind`, `algorithm.params`). */
export interface AlgorithmSpec {
  readonly kind: AlgorithmKind
  readonly params: Readonly<Record<string, number>>
}

/** A duration of `ms` as the factories take it: a string of ms (no warning about bare numbers under a second). */
const ms = (value: number): string | number => {
  const text = String(value)
  return /^\d+(\.\d+)?$/.test(text) ? (`${text}ms` as const) : value
}

const p = (params: Readonly<Record<string, number>>, name: string): number => {
  const value = params[name]
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new TypeError(`params.${name} is missing`)
  return value
}

const PERIODS = ['day', 'week', 'month'] as const

const offsetText = (offsetMs: number): string => {
  const minutes = Math.abs(offsetMs) / 60_000
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0')
  const mm = String(minutes % 60).padStart(2, '0')
  return `${offsetMs < 0 ? '-' : '+'}${hh}:${mm}`
}

function build(kind: AlgorithmKind, params: Readonly<Record<string, number>>): Algorithm {
  switch (kind) {
    case 'fixed-window':
      return fixedWindow({ limit: p(params, 'limit'), window: ms(p(params, 'windowMs')) as never })
    case 'sliding-window-counter':
      return slidingWindowCounter({ limit: p(params, 'limit'), window: ms(p(params, 'windowMs')) as never })
    case 'sliding-window-log':
      return slidingWindowLog({ limit: p(params, 'limit'), window: ms(p(params, 'windowMs')) as never })
    case 'token-bucket':
      return tokenBucket({
        capacity: p(params, 'capacity'),
        refillRate: p(params, 'rate'),
        interval: ms(p(params, 'intervalMs')) as never,
      })
    case 'leaky-bucket': {
      const shape = p(params, 'shape') === 1
      const maxDelayMs = params.maxDelayMs
      return leakyBucket({
        capacity: p(params, 'capacity'),
        leakRate: p(params, 'rate'),
        interval: ms(p(params, 'intervalMs')) as never,
        mode: shape ? 'shape' : 'police',
        ...(maxDelayMs === undefined ? {} : { maxDelay: ms(maxDelayMs) as never }),
      })
    }
    case 'gcra': {
      // emission = period / rate: a rate of 1 per emission period, the same emission to the bit.
      return gcra({ rate: 1, period: ms(p(params, 'emissionMs')) as never, burst: p(params, 'burst') })
    }
    case 'calendar-quota':
      return calendarQuota({
        limit: p(params, 'limit'),
        period: PERIODS[p(params, 'period')]!,
        utcOffset: offsetText(p(params, 'offsetMs')),
      })
    default:
      throw new TypeError(`no algorithm of kind '${String(kind)}'`)
  }
}

/**
 * The algorithm of a kind and its canonical parameters, as `algorithm.kind` and `algorithm.params` give them:
 * what a store keeps of an algorithm (an override set at runtime), made into one again. The algorithm it makes
 * has the same `id` as the one described, or this throws a `RateLimitConfigError` (`option` names where the
 * description came from): an algorithm of a kind Floodgate does not ship, or parameters no factory gives.
 *
 * @example algorithmFromParams(gcra({ rate: 10 }))                                // the same GCRA again
 * @example algorithmFromParams({ kind: 'fixed-window', params: { limit: 5, windowMs: 60_000 } })
 */
export function algorithmFromParams(spec: AlgorithmSpec, option = 'algorithm'): Algorithm {
  const expected =
    'an algorithm made by a factory of @floodgate/core (fixedWindow, slidingWindowCounter, slidingWindowLog, tokenBucket, leakyBucket, gcra, calendarQuota)'
  let algorithm: Algorithm
  try {
    algorithm = build(spec.kind, spec.params)
  } catch {
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', option, spec, expected)
  }
  const id = (spec as Partial<Algorithm>).id
  const same = Object.entries(spec.params).every(([name, value]) => algorithm.params[name] === value)
  if (!same || (id !== undefined && algorithm.id !== id)) {
    throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', option, spec, expected)
  }
  return algorithm
}

import type { AlgorithmKind } from '@floodgate/core/internal'
import { bucketStep } from './bucket.js'
import { calendarQuotaStep } from './calendar-quota.js'
import { concurrencyStep } from './concurrency.js'
import { fixedWindowStep } from './fixed-window.js'
import { gcraStep } from './gcra.js'
import { type Location, qualified } from './location.js'
import { slidingWindowCounterStep } from './sliding-window-counter.js'
import { slidingWindowLogStep } from './sliding-window-log.js'
import { type Step, stepFunction } from './step-signature.js'

/** Each algorithm kind's step (both buckets share one). */
const STEPS: readonly (readonly [AlgorithmKind, Step])[] = [
  ['fixed-window', fixedWindowStep],
  ['sliding-window-counter', slidingWindowCounterStep],
  ['sliding-window-log', slidingWindowLogStep],
  ['token-bucket', bucketStep],
  ['leaky-bucket', bucketStep],
  ['gcra', gcraStep],
  ['calendar-quota', calendarQuotaStep],
  ['concurrency', concurrencyStep],
]

/** The `CREATE FUNCTION` of every step, each once, for the migration. */
export function stepFunctions(location: Location): string[] {
  return [...new Set(STEPS.map(([, step]) => step))].map((step) => stepFunction(location, step))
}

/** `args` with the last one (the fourth parameter slot) replaced by the database's clock, `v_clock`. */
const withClock = (args: string): string => `${args.slice(0, args.lastIndexOf(','))}, v_clock`

/**
 * PL/pgSQL that runs the step of the algorithm named by the expression `kind` on `args` (the arguments every
 * step function takes, as SQL expressions) and assigns its result to the variable `r`. Written out where it is
 * used rather than called through a dispatcher function: one PL/pgSQL call fewer per decision.
 */
export function runStep(location: Location, kind: string, args: string, indent: string): string {
  return [
    `CASE ${kind}`,
    ...STEPS.map(
      ([name, step]) =>
        `  WHEN '${name}' THEN r := ${qualified(location, step.suffix)}(${step.clock ? withClock(args) : args});`,
    ),
    "  ELSE RAISE EXCEPTION 'Floodgate has no step for the algorithm kind %', " +
      `${kind} USING ERRCODE = '22023';`,
    'END CASE;',
  ].join(`\n${indent}`)
}

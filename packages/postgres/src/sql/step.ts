import { type Location, qualified } from './location.js'

/** Each algorithm kind's step function (both buckets share one). */
const STEPS = [
  ['fixed-window', '_fixed_window'],
  ['sliding-window-counter', '_sliding_window_counter'],
  ['sliding-window-log', '_sliding_window_log'],
  ['token-bucket', '_bucket'],
  ['leaky-bucket', '_bucket'],
  ['gcra', '_gcra'],
  ['calendar-quota', '_calendar_quota'],
] as const

/**
 * PL/pgSQL that runs the step of the algorithm named by the expression `kind` on `args` (the arguments every
 * step function takes, as SQL expressions) and assigns its result to the variable `r`. Written out where it is
 * used rather than called through a dispatcher function: one PL/pgSQL call fewer per decision.
 */
export function runStep(location: Location, kind: string, args: string, indent: string): string {
  return [
    `CASE ${kind}`,
    ...STEPS.map(([name, suffix]) => `  WHEN '${name}' THEN r := ${qualified(location, suffix)}(${args});`),
    "  ELSE RAISE EXCEPTION 'Floodgate has no step for the algorithm kind %', " +
      `${kind} USING ERRCODE = '22023';`,
    'END CASE;',
  ].join(`\n${indent}`)
}

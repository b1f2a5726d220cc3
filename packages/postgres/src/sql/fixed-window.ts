import { periodCounterBody } from './period-counter.js'
import type { Step } from './step-signature.js'

/**
 * Fixed window, as `@floodgate/core`'s `fixedWindow` and the Redis script: state `{windowStart, count}`,
 * windows aligned to the clock. Parameters: limit, windowMs.
 */
export const fixedWindowStep: Step = {
  suffix: '_fixed_window',
  params: ['lim', 'w', 'unused_3', 'unused_4'],
  body: (R) => `
DECLARE
  start float8 := floor(now_ms / w) * w;
  until_next float8 := start + w - now_ms;
  used float8 := 0;
BEGIN${periodCounterBody(R)}
END`,
}

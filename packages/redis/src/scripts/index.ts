import type { AlgorithmKind } from '@floodgate/core/internal'
import { KINDS } from '../wire.js'
import { BUCKET } from './bucket.js'
import { CALENDAR_QUOTA } from './calendar-quota.js'
import { CONCURRENCY, RELEASE } from './concurrency.js'
import { CONSUME_ALL_ENTRY_LUA, singleEntryLua } from './entry.js'
import { FIXED_WINDOW } from './fixed-window.js'
import { GCRA } from './gcra.js'
import { type AlgorithmLua, LIBRARIES_LUA } from './lua.js'
import { defineScript, type Script } from './script.js'
import { SLIDING_WINDOW_COUNTER } from './sliding-window-counter.js'
import { SLIDING_WINDOW_LOG } from './sliding-window-log.js'

export { defineScript, type Script } from './script.js'

/** Each algorithm's Lua (both buckets share one). */
const ALGORITHMS: Record<AlgorithmKind, AlgorithmLua> = {
  'fixed-window': FIXED_WINDOW,
  'sliding-window-counter': SLIDING_WINDOW_COUNTER,
  'sliding-window-log': SLIDING_WINDOW_LOG,
  'token-bucket': BUCKET,
  'leaky-bucket': BUCKET,
  gcra: GCRA,
  'calendar-quota': CALENDAR_QUOTA,
  concurrency: CONCURRENCY,
}

/** A one-key script: the algorithm's code inline, after its entry (no function to define per call). */
const single = (algorithm: AlgorithmLua): Script =>
  defineScript(algorithm.name, `${LIBRARIES_LUA}${singleEntryLua(algorithm)}${algorithm.body}`)

const bucket = single(BUCKET)
/** One script per algorithm (both buckets share one): one key, one decision. */
export const SCRIPTS: Readonly<Record<AlgorithmKind, Script>> = {
  'fixed-window': single(FIXED_WINDOW),
  'sliding-window-counter': single(SLIDING_WINDOW_COUNTER),
  'sliding-window-log': single(SLIDING_WINDOW_LOG),
  'token-bucket': bucket,
  'leaky-bucket': bucket,
  gcra: single(GCRA),
  'calendar-quota': single(CALENDAR_QUOTA),
  concurrency: single(CONCURRENCY),
}

const functionOf = (algorithm: AlgorithmLua): string =>
  `local function ${algorithm.name}(key, ${algorithm.locals.join(', ')})${algorithm.body}end\n`

/**
 * Several keys (each its own algorithm) decided as one: every item is peeked, and only when all would pass
 * are they all consumed. Replies with one decision per item, all in one string (see `wire.ts`). All keys must
 * be on one Cluster slot.
 */
export const CONSUME_ALL: Script = defineScript(
  'consume_all',
  `${LIBRARIES_LUA}local text = false
${[...new Set(Object.values(ALGORITHMS))].map(functionOf).join('')}
local decide = { ${KINDS.map((kind) => ALGORITHMS[kind].name).join(', ')} }
${CONSUME_ALL_ENTRY_LUA}`,
)

/** Every script, for loading them ahead of time and for the test that checks their SHA1. */
export const ALL_SCRIPTS: readonly Script[] = [...new Set([...Object.values(SCRIPTS), CONSUME_ALL, RELEASE])]

export { RELEASE }

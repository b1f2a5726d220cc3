import type { AlgorithmKind } from '@floodgate/core'
import { CONSUME_ALL_MAIN_LUA, REPLY_LUA, SINGLE_MAIN_LUA } from '../wire.js'
import { BUCKET } from './bucket.js'
import { CALENDAR_QUOTA } from './calendar-quota.js'
import { FIXED_WINDOW } from './fixed-window.js'
import { GCRA } from './gcra.js'
import { defineScript, PRELUDE, type Script } from './script.js'
import { SLIDING_WINDOW_COUNTER } from './sliding-window-counter.js'
import { SLIDING_WINDOW_LOG } from './sliding-window-log.js'

export { defineScript, type Script } from './script.js'

/** Each algorithm's Lua function: its source and the name it is defined under. */
const FUNCTIONS: Record<AlgorithmKind, { name: string; body: string }> = {
  'fixed-window': { name: 'fixed_window', body: FIXED_WINDOW },
  'sliding-window-counter': { name: 'sliding_window_counter', body: SLIDING_WINDOW_COUNTER },
  'sliding-window-log': { name: 'sliding_window_log', body: SLIDING_WINDOW_LOG },
  'token-bucket': { name: 'bucket', body: BUCKET },
  'leaky-bucket': { name: 'bucket', body: BUCKET },
  gcra: { name: 'gcra', body: GCRA },
  'calendar-quota': { name: 'calendar_quota', body: CALENDAR_QUOTA },
}

const single = (kind: AlgorithmKind): Script => {
  const { name, body } = FUNCTIONS[kind]
  return defineScript(name, `${PRELUDE}${REPLY_LUA}${body}\nlocal decide = ${name}\n${SINGLE_MAIN_LUA}`)
}

/** One script per algorithm (both buckets share one): one key, one decision. */
export const SCRIPTS: Readonly<Record<AlgorithmKind, Script>> = {
  'fixed-window': single('fixed-window'),
  'sliding-window-counter': single('sliding-window-counter'),
  'sliding-window-log': single('sliding-window-log'),
  'token-bucket': single('token-bucket'),
  'leaky-bucket': single('leaky-bucket'),
  gcra: single('gcra'),
  'calendar-quota': single('calendar-quota'),
}

const uniqueBodies = [...new Map(Object.values(FUNCTIONS).map((f) => [f.name, f.body])).values()]

/**
 * Several keys (each its own algorithm) decided as one: every item is peeked, and only when all would pass
 * are they all consumed. Replies with one decision per item. All keys must be on one Cluster slot.
 */
export const CONSUME_ALL: Script = defineScript(
  'consume_all',
  `${PRELUDE}${REPLY_LUA}${uniqueBodies.join('')}
local decide = {
${Object.entries(FUNCTIONS)
  .map(([kind, f]) => `  ['${kind}'] = ${f.name},`)
  .join('\n')}
}
${CONSUME_ALL_MAIN_LUA}`,
)

/** Every script, for loading them ahead of time and for the test that checks their SHA1. */
export const ALL_SCRIPTS: readonly Script[] = [...new Set([...Object.values(SCRIPTS), CONSUME_ALL])]

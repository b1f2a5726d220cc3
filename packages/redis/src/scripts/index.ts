import type { AlgorithmKind } from '@floodgate/core'
import { BUCKET } from './bucket.js'
import { FIXED_WINDOW } from './fixed-window.js'
import { GCRA } from './gcra.js'
import { defineScript, PRELUDE, type Script, SINGLE_MAIN } from './script.js'
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
}

const single = (kind: AlgorithmKind): Script => {
  const { name, body } = FUNCTIONS[kind]
  return defineScript(name, `${PRELUDE}${body}\nlocal decide = ${name}\n${SINGLE_MAIN}`)
}

/** One script per algorithm (both buckets share one): one key, one decision. */
export const SCRIPTS: Readonly<Record<AlgorithmKind, Script>> = {
  'fixed-window': single('fixed-window'),
  'sliding-window-counter': single('sliding-window-counter'),
  'sliding-window-log': single('sliding-window-log'),
  'token-bucket': single('token-bucket'),
  'leaky-bucket': single('leaky-bucket'),
  gcra: single('gcra'),
}

/** How many ARGV entries each item of {@link CONSUME_ALL} takes: kind, cost, then four parameters. */
export const CONSUME_ALL_ARGS_PER_ITEM = 6

const uniqueBodies = [...new Map(Object.values(FUNCTIONS).map((f) => [f.name, f.body])).values()]

/**
 * Several keys (each its own algorithm) decided as one: every item is peeked, and only when all would pass
 * are they all consumed. `KEYS`: the states. `ARGV`: reply format (`b` binary, `t` text), now (empty: the
 * server's clock), grace, then per item its kind, cost and four parameters. Replies with one decision per
 * item.
 */
export const CONSUME_ALL: Script = defineScript(
  'consume_all',
  `${PRELUDE}${uniqueBodies.join('')}
local decide = {
${Object.entries(FUNCTIONS)
  .map(([kind, f]) => `  ['${kind}'] = ${f.name},`)
  .join('\n')}
}
text = ARGV[1] == 't'
local now = clock(ARGV[2])
local grace = tonumber(ARGV[3])
local out = {}
local all = true
for pass = 1, 2 do
  local op = 'p'
  if pass == 2 then op = 'c' end
  for i = 1, #KEYS do
    local a = 3 + (i - 1) * ${CONSUME_ALL_ARGS_PER_ITEM}
    out[i] = decide[ARGV[a + 1]](KEYS[i], op, now, tonumber(ARGV[a + 2]), grace,
      tonumber(ARGV[a + 3]), tonumber(ARGV[a + 4]), tonumber(ARGV[a + 5]), tonumber(ARGV[a + 6]))
    local allowed
    if text then allowed = string.byte(out[i], 1) == 49 else allowed = decode('<d', out[i]) == 1 end
    if not allowed then all = false end
  end
  if not all then break end
end
return out
`,
)

/** Every script, for loading them ahead of time and for the test that checks their SHA1. */
export const ALL_SCRIPTS: readonly Script[] = [...new Set([...Object.values(SCRIPTS), CONSUME_ALL])]

// @bench-title Overrides: what an override lookup costs
// @bench-flags
//
// A policy keyed by user (a fixed window; the overrides' algorithms of the same kind and window, another limit),
// decided by core's HTTP handler on the MemoryStore (`handle()` on a request
// description, the part every adapter shares), counted in CPU instructions per decision by valgrind's callgrind
// (the same count whatever else the machine is doing), with `memory/handle-overrides-loop.mjs`:
//   - none: no `overrides` option (the baseline: no step, no lookup);
//   - miss: 100 exact identifiers and 10 patterns, none of which the caller matches;
//   - exact: the caller is one of the 100 (the override's algorithm decides);
//   - wildcard: the caller matches a pattern (the wildcard answer is cached).
// The goal: an override lookup adds at most 5% to a decision. Writes bench/results/overrides.md and .json.
//
//   node bench/suites/overrides.mjs                  # a few minutes under valgrind
//   node bench/suites/overrides.mjs --from-results   # the section again from bench/results/overrides.json
import { fileURLToPath } from 'node:url'
import { machine } from '../lib/env.mjs'
import { hasValgrind, instructionsPerOperation } from '../lib/instructions.mjs'
import { readResults, writeResults } from '../lib/results.mjs'

const fromResults = process.argv.includes('--from-results') // write the section again from the stored counts
if (!fromResults && !hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
const core = fileURLToPath(new URL('../../packages/core/dist/index.js', import.meta.url))
const loop = fileURLToPath(new URL('./memory/handle-overrides-loop.mjs', import.meta.url))
const modes = ['none', 'miss', 'exact', 'wildcard']
const stored = fromResults ? readResults('overrides')?.json : undefined
const counts = stored?.counts ?? {}
for (const mode of fromResults ? [] : modes) {
  counts[mode] = Math.round(instructionsPerOperation(loop, [core, mode], { small: 30_000, large: 90_000 }))
  console.error(`${mode}: ${counts[mode]} instructions per decision`)
}
const ratio = (mode) => counts[mode] / counts.none
const lookup = ratio('miss')
const applied = Math.max(ratio('exact'), ratio('wildcard'))
const pct = (r) => `${((r - 1) * 100).toFixed(1)}%`
const rows = modes.map(
  (mode) =>
    `| ${mode} | ${counts[mode].toLocaleString('en-US')} | ${mode === 'none' ? '1.000x' : `${ratio(mode).toFixed(3)}x`} |`,
)
const markdown = [
  '## Overrides: what an override lookup costs',
  '',
  `### Goal: an override lookup adds at most 5% to a decision: ${lookup <= 1.05 ? 'met' : 'NOT met'} for the lookup (a caller no override applies to: +${pct(lookup)}); ${applied <= 1.05 ? 'met' : 'NOT met'} for a caller an override applies to (at most +${pct(applied)})`,
  '',
  "A caller an override applies to is decided under a key of its own (the policy's scope and the pattern: a",
  'longer key to build and hash), with header values formatted for its quota by a writer built when first met;',
  'see bench/goals-not-met.md.',
  '',
  "CPU instructions per decision of core's HTTP handler on the MemoryStore (valgrind callgrind, steady state:",
  '30k and 90k decisions after 30k of warm-up, the difference divided), a policy keyed by user, one caller, a',
  'quota nobody reaches; the policy a fixed window of a minute, each override one of the same kind and window with',
  "another limit (so the difference is the overrides' own work, not another algorithm's). `none`: no `overrides`",
  'option; `miss`: 100 exact identifiers and 10 patterns, none',
  'matching the caller (a Map lookup, then the wildcard answer cached for the caller); `exact`: the caller is one',
  "of the 100 (a Map lookup; the override's algorithm decides, in a key scope of its own); `wildcard`: the",
  'caller matches a pattern (a Map lookup, then the cached wildcard answer).',
  '',
  '| overrides | instructions per decision | vs none |',
  '|---|---|---|',
  ...rows,
  '',
  'Command: `node bench/suites/overrides.mjs` (or one count: `node bench/suites/memory/count.mjs',
  'handle-overrides-loop.mjs packages/core/dist/index.js <none|miss|exact|wildcard>`).',
]
const m = machine()
writeResults('overrides', markdown.join('\n'), {
  meta: stored?.meta ?? { date: new Date().toISOString(), ...m },
  counts,
})

// A loop of `n` awaited decisions after a warm-up, for the memory suite's instruction counts:
//
//   node bench/suites/memory/decide-loop.mjs <store> <hot|keys> <n>
//
// Counted by count.mjs beside it. `store` is a name from bench/lib/contenders.mjs; `hot` is one key, `keys` 10,000 keys round robin (fewer
// than the timed runs' 100,000: under valgrind every key costs ~50x). The calling pattern is the suite's:
// `await decide(key)`, one call in flight (a synchronous one without await). FLOODGATE_CORE=<path to an index.js> measures another build of core.
import { contenders, keyOf } from '../../lib/contenders.mjs'

const [store, which, count] = process.argv.slice(2)
const decide = await contenders[store].create({ limit: 1e9, windowMs: 60_000, refill: 1, maxKeys: 1_000_000 })
const keys = which === 'hot' ? ['203.0.113.7'] : Array.from({ length: 10_000 }, (_, i) => keyOf(i))
const len = keys.length
// A synchronous decide (`consumeSync`, a bare Map) is called as its users call it: without await.
if (decide.sync) {
  for (let i = 0; i < 30_000; i++) decide(keys[i % len])
  for (let i = 0; i < Number(count); i++) decide(keys[i % len])
} else {
  for (let i = 0; i < 30_000; i++) await decide(keys[i % len])
  for (let i = 0; i < Number(count); i++) await decide(keys[i % len])
}

// Core's handler deciding in a loop, as the metrics suite's CPU rows do (./decide.mjs), for counting CPU
// instructions per decision under valgrind (bench/suites/metrics/decide-count.mjs):
//
//   node bench/suites/metrics/decide-loop.mjs <off|prometheus|opentelemetry> <1|3|async|redis> <warmup> <n> [redis port]
//
// `warmup` decisions, a mark (bench/suites/http/marks.mjs: under callgrind, a dump), `n` decisions and another
// mark, so that the second dump holds the `n` decisions alone.
import { heapAtMarks, mark } from '../http/marks.mjs'
import { limiterOf } from './decide.mjs'

const [sink, scenario, warmup, n, port] = process.argv.slice(2)
const redis = scenario === 'redis'
const decide = await limiterOf({
  sink,
  policies: redis || scenario === 'async' ? scenario : Number(scenario),
  redis: redis
    ? { host: '127.0.0.1', port: Number(port), prefix: `fg-bench-count:${process.pid}:` }
    : undefined,
})
await decide(Number(warmup))
mark()
await decide(Number(n))
mark()
console.log(JSON.stringify({ heapAtMarks }))
process.exit(0)

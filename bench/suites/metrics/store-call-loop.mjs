// A RedisStore's metrics on one store call, alone, for counting CPU instructions under valgrind
// (bench/suites/metrics/http-run.mjs): what timing a call adds to a bounded call that answers at once, made
// as the RedisStore makes its calls (a promise around an entry in its deadline queue, settled by the reply).
// A timed call carries the store-duration histogram on its entry, which records the time from its start
// when it settles; metrics off, the entry carries none.
//
//   node bench/suites/metrics/store-call-loop.mjs <off|prometheus|opentelemetry|opentelemetry-producer> <warmup> <n>
import { CallFailure, createStoreMetrics, Deadlines, settle } from '@floodgate/core/internal'
import { metricsSink } from '../../lib/metrics-sink.mjs'
import { heapAtMarks, mark } from '../http/marks.mjs'

const [sink, warmup, n] = process.argv.slice(2)
const metrics = createStoreMetrics({
  sink: sink === 'off' ? undefined : await metricsSink(sink),
  store: 'redis',
  operations: ['consume', 'consume_all', 'peek', 'refund', 'reset'],
  circuitOpen: () => false,
})
const deadlines = new Deadlines(500, () => new CallFailure(new Error('timed out'), true, true))
const reply = [1, 0, 0]
async function calls(count) {
  for (let i = 0; i < count; i++) {
    // As ScriptRunner.run: the histogram of the call's operation on its deadline entry (none when off).
    const settled = await new Promise((resolve) => {
      settle(deadlines.start(resolve, metrics?.histogramOf('consume')), reply)
    })
    if (settled !== reply) throw new Error('the call did not resolve with its reply')
  }
}
await calls(Number(warmup))
mark()
await calls(Number(n))
mark()
console.log(JSON.stringify({ heapAtMarks }))
process.exit(0)

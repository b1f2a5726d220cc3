// A RedisStore's metrics on one store call, alone, for counting CPU instructions under valgrind
// (bench/suites/metrics/decide-count.mjs): what `timed()` adds to a call that answers at once (its clock
// reads, its `.then`, the histogram's record), metrics off (the call awaited bare) or through a sink.
//
//   node bench/suites/metrics/store-call-loop.mjs <off|prometheus|opentelemetry> <warmup> <n>
import { createStoreMetrics } from '@floodgate/core/internal'
import { metricsSink } from '../../lib/metrics-sink.mjs'
import { heapAtMarks, mark } from '../http/marks.mjs'

const [sink, warmup, n] = process.argv.slice(2)
const metrics = createStoreMetrics({
  sink: sink === 'off' ? undefined : await metricsSink(sink),
  store: 'redis',
  operations: ['consume', 'consume_all', 'peek', 'refund', 'reset'],
  circuitOpen: () => false,
})
const reply = [1, 0, 0]
async function calls(count) {
  for (let i = 0; i < count; i++) {
    const call = Promise.resolve(reply)
    // As the RedisStore's calls do: `this.metrics ? this.metrics.timed(operation, sent) : sent`.
    const settled = await (metrics ? metrics.timed('consume', call) : call)
    if (settled !== reply) throw new Error('the call did not resolve with its reply')
  }
}
await calls(Number(warmup))
mark()
await calls(Number(n))
mark()
console.log(JSON.stringify({ heapAtMarks }))
process.exit(0)

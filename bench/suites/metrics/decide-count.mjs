/**
 * CPU instructions per decision of core's handler (./decide-loop.mjs) under valgrind's callgrind, metrics off
 * and through each sink, on the MemoryStore (one policy) and on a RedisStore: what the metrics code itself
 * costs, where nothing but the limiter runs, so the count steadies within a few thousand decisions.
 */
import { fileURLToPath } from 'node:url'
import { callgrindMarks } from './http-count.mjs'

const LOOP = fileURLToPath(new URL('./decide-loop.mjs', import.meta.url))
export const DECIDE_SCENARIOS = {
  1: { warmup: 100_000, n: 50_000 },
  async: { warmup: 100_000, n: 50_000 },
  redis: { warmup: 30_000, n: 4_000 },
}
export const DECIDE_SINKS = ['off', 'prometheus', 'opentelemetry', 'opentelemetry-producer']

/** `{ total, program }` instructions per decision for `sink` in `scenario` (`redis`: `{ port }`). */
export async function countDecisions(sink, scenario, { redis, scale = 1 } = {}) {
  const { warmup, n } = DECIDE_SCENARIOS[scenario]
  const count = Math.round(n * scale)
  const { dumps } = await callgrindMarks(
    [LOOP, sink, scenario, String(Math.round(warmup * scale)), String(count), String(redis?.port ?? 0)],
    { env: { REQUEST_LOOP_INSTRUMENT: '1' }, marks: 2, name: `decide-${scenario}-${sink}` },
  )
  const [d] = dumps
  return { n: count, total: d.total / count, program: d.program / count }
}

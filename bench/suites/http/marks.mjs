/**
 * Marks in a loop counted under valgrind's callgrind: `mark()` calls `os.getPriority()`, which nothing else in
 * these loops calls, so that `valgrind --tool=callgrind --dump-before=uv_os_getpriority` dumps the count since
 * the mark before (bench/suites/metrics/http-count.mjs reads the dumps). Started under `--instr-atstart=no`
 * with `REQUEST_LOOP_INSTRUMENT=1`, the first mark turns callgrind's instrumentation on (`callgrind_control -i
 * on`), so a long warm-up before it runs several times faster than counted; run with `--expose-gc` and a young
 * generation larger than what the counted requests allocate, it first empties the young generation (a
 * scavenge: no full collection, which would throw optimized code away), so that no collection runs while
 * counting. Each mark also notes the process's CPU time (user + system, µs, `cpuAtMarks`) and its heap
 * (`heapAtMarks`: with no collection in between, the bytes allocated).
 */
import { spawnSync } from 'node:child_process'
import os from 'node:os'

export const cpuAtMarks = []
export const heapAtMarks = []
let instrumented = !process.env.REQUEST_LOOP_INSTRUMENT

export function mark() {
  if (!instrumented) {
    instrumented = true
    globalThis.gc?.({ type: 'minor' })
    const on = spawnSync('callgrind_control', ['-i', 'on', String(process.pid)], { encoding: 'utf8' })
    if (on.status !== 0) throw new Error(`callgrind_control -i on: ${on.stdout}${on.stderr}`)
  }
  os.getPriority()
  const { user, system } = process.cpuUsage()
  cpuAtMarks.push(user + system)
  heapAtMarks.push(process.memoryUsage().heapUsed)
}

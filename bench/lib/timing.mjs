/**
 * Timing loops. Every suite calls the thing it measures through one async function, `decide(key)`, and
 * awaits each call before making the next (one call in flight): the same calling pattern for everything
 * measured, so the per-call `await` is part of every number.
 */

const CHECK_EVERY = 1024

/** Elapsed ns since `start` (a bigint from process.hrtime.bigint()), as a number. */
export const sinceNs = (start) => Number(process.hrtime.bigint() - start)

/**
 * Call `decide(keys[i])` round robin over `keys`, awaiting each call, for about `ms` milliseconds.
 * Returns how many calls were made, how many resolved truthy (admitted), the exact elapsed time and the CPU
 * time the process used meanwhile (all its threads, the GC threads included): calls per CPU-second hardly move
 * when other processes compete for the cores, calls per (wall) second do.
 * `startAt` lets a caller continue the round robin where an earlier loop (the warm-up) stopped.
 */
export async function runFor(decide, keys, ms, startAt = 0) {
  const budget = ms * 1e6
  let i = startAt % keys.length
  let calls = 0
  let admitted = 0
  const start = process.hrtime.bigint()
  let elapsed = 0
  const cpu0 = process.cpuUsage()
  do {
    // A synchronous `decide` (`decide.sync`: Floodgate's `consumeSync`, a bare Map) runs the same loop with
    // no `await`, which is what such an API saves its caller.
    const batch = decide.sync ? callBatch(decide, keys, i) : await awaitBatch(decide, keys, i)
    i = batch.next
    admitted += batch.admitted
    calls += CHECK_EVERY
    elapsed = sinceNs(start)
  } while (elapsed < budget)
  const cpu = process.cpuUsage(cpu0)
  const cpuNs = (cpu.user + cpu.system) * 1e3
  return {
    calls,
    admitted,
    elapsedNs: elapsed,
    cpuNs,
    next: i,
    perSecond: calls / (elapsed / 1e9),
    perCpuSecond: calls / (cpuNs / 1e9),
  }
}

/** `CHECK_EVERY` awaited calls from key `i`, round robin: where the next batch starts, how many were admitted. */
async function awaitBatch(decide, keys, i) {
  let admitted = 0
  for (let j = 0; j < CHECK_EVERY; j++, i = i + 1 === keys.length ? 0 : i + 1)
    if (await decide(keys[i])) admitted++
  return { next: i, admitted }
}

/** The same for a synchronous `decide`, called without `await`. */
function callBatch(decide, keys, i) {
  let admitted = 0
  for (let j = 0; j < CHECK_EVERY; j++, i = i + 1 === keys.length ? 0 : i + 1) if (decide(keys[i])) admitted++
  return { next: i, admitted }
}

/** Call `decide` once per key, in order, awaiting each call (used to create keys). */
export async function touchAll(decide, keys) {
  let admitted = 0
  for (let i = 0; i < keys.length; i++) if (decide.sync ? decide(keys[i]) : await decide(keys[i])) admitted++
  return admitted
}

/**
 * Latency of `count` awaited calls, round robin over `keys` from `startAt`: process.hrtime.bigint() read
 * before each call and after its await. The numbers include the timer reads themselves (tens of ns), the
 * same for everything measured. Returns the samples in ns.
 */
export async function sampleLatency(decide, keys, count, startAt = 0) {
  const len = keys.length
  const samples = new Float64Array(count)
  let i = startAt % len
  for (let k = 0; k < count; k++) {
    const t0 = process.hrtime.bigint()
    if (decide.sync) decide(keys[i])
    else await decide(keys[i])
    samples[k] = Number(process.hrtime.bigint() - t0)
    if (++i === len) i = 0
  }
  return samples
}

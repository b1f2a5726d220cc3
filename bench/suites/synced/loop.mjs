// The timed loop of the synced suite (bench/suites/synced.mjs): decisions on one store, `inFlight` at a time.
// The suite imports this module once per store it runs in one process (`loop.mjs?<store>`), so that each store
// has its own copy of these functions and of their JIT feedback: with one shared copy, the call to `consume`
// would see every store's class and none would be inlined.

/** The decide function of the loop: consume one unit of `key`, resolving with whether it was admitted. */
export function decider(store, algorithm) {
  return async (key) => (await store.consume(algorithm, key, 1)).allowed
}

/** Every this many calls, a worker yields to the event loop, as a server does between requests. */
const YIELD_EVERY = 256
const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve))

/**
 * Keep `inFlight` calls going over `keys` for about `ms`; the deadline is checked by the callers themselves. Every
 * store's loop yields to the event loop now and then, so timers (the SyncedStore's syncs, the MemoryStore's clock)
 * and replies run as they would in a server: a loop of stores answering from memory would otherwise starve them.
 */
export async function throughput(decide, keys, inFlight, ms, onYield) {
  let i = 0
  let calls = 0
  let running = true
  const start = process.hrtime.bigint()
  const deadline = start + BigInt(Math.round(ms * 1e6))
  const cpu0 = process.cpuUsage()
  const worker = async () => {
    while (running) {
      await decide(keys[i++ % keys.length])
      if ((++calls & 63) === 0 && process.hrtime.bigint() >= deadline) running = false
      if (calls % YIELD_EVERY === 0) {
        onYield?.()
        await yieldToLoop()
      }
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  const elapsedMs = Number(process.hrtime.bigint() - start) / 1e6
  const cpu = process.cpuUsage(cpu0)
  const cpuSeconds = (cpu.user + cpu.system) / 1e6
  return { perSecond: calls / (elapsedMs / 1000), perCpuSecond: calls / cpuSeconds, calls, elapsedMs }
}

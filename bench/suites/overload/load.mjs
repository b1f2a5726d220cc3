// Open-loop load: requests at a fixed rate whatever the server answers (as real clients arrive), 20% of them
// premium, each with a deadline after which the client gives up and closes its connection. Every request
// is recorded: its class, its status (0: gave up or failed), and its latency.
import { rawPool } from './raw-client.mjs'

/** Seeded PRNG (mulberry32), so every server gets the same sequence of premium and standard requests. */
function seeded(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Send `rate` requests per second for `durationMs` to 127.0.0.1:`port`, in ticks of 5 ms, and resolve with
 * the record of every request sent after the first `settleMs` (the load is the same throughout, so the
 * server is in its steady state when measuring starts), once the last has answered or given up.
 */
export function drive({
  port,
  rate,
  durationMs,
  settleMs = 0,
  premiumShare = 0.2,
  timeoutMs = 5000,
  seed = 7,
}) {
  const pool = rawPool(port)
  const random = seeded(seed)
  const records = []
  let pending = 0
  const started = performance.now()
  let sent = 0
  const send = () => {
    const premium = random() < premiumShare
    const record = { premium, status: 0, latencyMs: Number.NaN }
    if (performance.now() - started >= settleMs) records.push(record)
    pending++
    const t0 = performance.now()
    pool.get(premium ? 'x-plan: premium\r\n' : 'x-plan: standard\r\n', timeoutMs).then((status) => {
      record.status = status
      if (status !== 0) record.latencyMs = performance.now() - t0
      pending--
    })
  }
  return new Promise((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(
        Math.floor(((performance.now() - started) / 1000) * rate),
        Math.floor((durationMs / 1000) * rate),
      )
      while (sent < due) {
        send()
        sent++
      }
      if (performance.now() - started < durationMs) return
      clearInterval(tick)
      const wait = setInterval(() => {
        if (pending > 0) return
        clearInterval(wait)
        pool.close()
        resolve(records)
      }, 20)
    }, 5)
  })
}

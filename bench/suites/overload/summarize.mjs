import { percentile } from '../../lib/stats.mjs'

/** One class's figures: how many, the share answered 200, and the latency of those 200s. */
function classFigures(records) {
  const ok = records.filter((r) => r.status === 200)
  const latencies = Float64Array.from(ok.map((r) => r.latencyMs)).sort()
  const count = (status) => records.filter((r) => r.status === status).length
  return {
    sent: records.length,
    ok: ok.length,
    successRate: records.length ? ok.length / records.length : Number.NaN,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    refused429: count(429),
    refused503: count(503),
    gaveUp: count(0),
  }
}

/** A run's figures, premium and standard apart. */
export function summarize(records, memory) {
  return {
    premium: classFigures(records.filter((r) => r.premium)),
    standard: classFigures(records.filter((r) => !r.premium)),
    served: records.filter((r) => r.status === 200).length,
    memory,
  }
}

// What examples/metrics' README promises, as assertions: run against the example in the repository and
// against a copy installed from the packed packages. The scraped text is read with a real Prometheus
// exposition-format parser (parse-prometheus-text-format), never with prom-client's own registry.
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { expect } from 'vitest'

/** One family as the parser returns it: samples' values are strings. */
interface Family {
  name: string
  help: string
  type: string
  metrics: { value: string; labels?: Record<string, string> }[]
}

async function scrape(base: string): Promise<Map<string, Family>> {
  const res = await fetch(`${base}/metrics`)
  expect(res.status).toBe(200)
  // Prometheus's text format 0.0.4; Express 4 puts the charset it adds before the version, Express 5 after.
  expect(res.headers.get('content-type')).toMatch(/^text\/plain;(.*;)? ?version=0\.0\.4/)
  const families = (parsePrometheusTextFormat as (text: string) => Family[])(await res.text())
  return new Map(families.map((f) => [f.name, f]))
}

/** The value of the sample of `family` with exactly these labels, as a number; `undefined` when absent. */
function value(families: Map<string, Family>, family: string, labels: Record<string, string>) {
  const sample = families.get(family)?.metrics.find((m) => {
    const own = m.labels ?? {}
    return (
      Object.keys(own).length === Object.keys(labels).length &&
      Object.entries(labels).every(([k, v]) => own[k] === v)
    )
  })
  return sample === undefined ? undefined : Number(sample.value)
}

async function statuses(base: string, path: string, n: number): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < n; i++) {
    const res = await fetch(`${base}${path}`)
    await res.arrayBuffer()
    out.push(res.status)
  }
  return out
}

/** `examples/metrics` on a fresh server: the counts scraped from /metrics match the requests sent. */
export async function expectMetricsExample(base: string): Promise<void> {
  expect(await statuses(base, '/hello', 7)).toEqual([200, 200, 200, 200, 200, 429, 429])
  expect(await statuses(base, '/ping', 2)).toEqual([200, 200])
  expect(await statuses(base, '/health', 1)).toEqual([200]) // before the limiter: not counted at all

  const first = await scrape(base)
  const requests = first.get('floodgate_requests_total')!
  expect(requests.type).toBe('COUNTER')
  expect(requests.help).toMatch(/^Requests a limiter handled, by outcome/)
  const outcome = (families: Map<string, Family>, o: string) =>
    value(families, 'floodgate_requests_total', { outcome: o })
  expect(
    ['allowed', 'limited', 'dry_run_limited', 'skipped', 'no_plan', 'error'].map((o) => outcome(first, o)),
  ).toEqual([5, 2, 0, 2, 0, 0])
  const decisions = (policy: string, o: string) =>
    value(first, 'floodgate_decisions_total', { policy, outcome: o })
  expect([decisions('per-minute', 'allowed'), decisions('per-minute', 'limited')]).toEqual([5, 2])
  expect([decisions('per-second', 'allowed'), decisions('per-second', 'limited')]).toEqual([7, 0])
  // The 5th request left 0 of 5 (below a fifth of the limit); none came near 20 a second.
  expect(value(first, 'floodgate_near_limit_total', { policy: 'per-minute' })).toBe(1)
  expect(value(first, 'floodgate_near_limit_total', { policy: 'per-second' })).toBe(0)
  expect(first.get('floodgate_shed_total')?.type).toBe('COUNTER')
  expect(value(first, 'floodgate_shed_total', { priority: 'sheddable', cause: 'in_flight' })).toBe(0)

  // Counters only go up: one more refusal is one more on the next scrape.
  expect(await statuses(base, '/hello', 1)).toEqual([429])
  const second = await scrape(base)
  expect(outcome(second, 'limited')).toBe(3)
  expect(outcome(second, 'allowed')).toBe(5)
}

// The catalog every binding reports from: Prometheus names as OpenTelemetry's Prometheus compatibility rules
// write the OpenTelemetry names, units as the semantic conventions write them, bounded labels only, and
// docs/metrics.md describing every metric with its labels and naming no metric that does not exist.
import { readFileSync } from 'node:fs'
import { METRICS, type MetricDefinition } from '@floodgate/core/internal'
import { describe, expect, it } from 'vitest'

const doc = readFileSync(new URL('../../../docs/metrics.md', import.meta.url), 'utf8')
const metrics: MetricDefinition[] = Object.values(METRICS)

/** OpenTelemetry's Prometheus compatibility rules: dots to underscores, the unit's suffix, `_total` on counters. */
function prometheusNameOf(m: MetricDefinition): string {
  const units: Record<string, string> = { s: 'seconds', By: 'bytes', '1': 'ratio' }
  const unit = m.unit.startsWith('{') ? '' : units[m.unit]
  if (unit === undefined) throw new Error(`${m.name}: no Prometheus suffix for unit ${m.unit}`)
  const base = m.name.replaceAll('.', '_')
  const withUnit = unit && !base.endsWith(`_${unit}`) ? `${base}_${unit}` : base
  return m.kind === 'counter' ? `${withUnit}_total` : withUnit
}

describe('METRICS', () => {
  it.each(metrics.map((m) => [m.name, m] as const))('%s: its Prometheus name follows the rules', (_, m) => {
    expect(m.prometheusName).toBe(prometheusNameOf(m))
    expect(m.name).toMatch(/^floodgate\.[a-z_]+(\.[a-z_]+)*$/)
  })

  it('units: seconds for durations, a {count} annotation for everything counted', () => {
    for (const m of metrics) {
      if (m.kind === 'histogram') expect(m.unit, m.name).toBe('s')
      else expect(m.unit, m.name).toMatch(/^\{[a-z]+\}$/)
    }
  })

  it('labels are bounded: never a key, an address, a path or a user', () => {
    const unbounded = /key|ip|address|path|url|user|id$/i
    for (const m of metrics) for (const label of m.labels) expect(label, m.name).not.toMatch(unbounded)
  })

  it('histograms have ascending buckets', () => {
    for (const m of metrics.filter((x) => x.kind === 'histogram')) {
      const buckets = m.buckets ?? []
      expect(buckets.length, m.name).toBeGreaterThan(5)
      expect([...buckets].sort((a, b) => a - b)).toEqual(buckets)
    }
  })
})

describe('docs/metrics.md', () => {
  const rows = new Map(
    doc
      .split('\n')
      .map((line) => /^\| `(floodgate_\w+)` \| (\w+) \| `([^`]+)` \| ([^|]+) \|/.exec(line))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, { type: m[2]!, unit: m[3]!, labels: m[4]!.trim() }]),
  )

  it('has a row for every metric, with its type, unit and labels', () => {
    expect([...rows.keys()].sort()).toEqual(metrics.map((m) => m.prometheusName).sort())
    for (const m of metrics) {
      const row = rows.get(m.prometheusName)!
      expect(row.type, m.prometheusName).toBe(m.kind)
      expect(row.unit, m.prometheusName).toBe(m.unit)
      expect(row.labels, m.prometheusName).toBe(m.labels.map((l) => `\`${l}\``).join(', '))
    }
  })

  it('names no metric that does not exist (in its alert rules and panels too)', () => {
    const known = new Set(
      metrics.flatMap((m) => [
        m.prometheusName,
        ...['_bucket', '_sum', '_count'].map((s) => m.prometheusName + s),
      ]),
    )
    const named = new Set(doc.match(/floodgate_[a-z_]+/g))
    expect([...named].filter((name) => !known.has(name))).toEqual([])
  })

  it('writes the histogram buckets the catalog has', () => {
    const ms = (s: number) => `${Number((s * 1000).toPrecision(6))}`
    expect(doc).toContain(
      `Buckets: ${METRICS.storeDuration.buckets
        .filter((b) => b < 1)
        .map(ms)
        .join(', ')} ms`,
    )
  })
})

import type { Metric, Registry, RegistryContentType } from 'prom-client'
import { type CounterCell, type Family, type GaugeCell, gaugeValue, type HistogramCell } from './cells.js'

/** One value as prom-client's registry formats it: `metricName{labels} value`. */
interface Sample {
  labels: Record<string, string | number>
  value: number
  metricName?: string
}

function counterSamples(family: Family<CounterCell>): Sample[] {
  return [...family.series.values()].map(({ labels, cell }) => ({ labels: { ...labels }, value: cell.value }))
}

function gaugeSamples(family: Family<GaugeCell>): Sample[] {
  const samples: Sample[] = []
  for (const { labels, cell } of family.series.values()) {
    if (cell.readers.size > 0) samples.push({ labels: { ...labels }, value: gaugeValue(cell) })
  }
  return samples
}

/** `_bucket` samples (cumulative, `le` last to `+Inf`), then `_sum` and `_count`, per series. */
function histogramSamples(name: string, family: Family<HistogramCell>): Sample[] {
  const samples: Sample[] = []
  for (const { labels, cell } of family.series.values()) {
    let cumulative = 0
    const bucket = (le: number | string, count: number) => {
      cumulative += count
      samples.push({ labels: { ...labels, le }, value: cumulative, metricName: `${name}_bucket` })
    }
    for (let i = 0; i < cell.bounds.length; i++) bucket(cell.bounds[i]!, cell.counts[i]!)
    bucket('+Inf', cell.counts[cell.bounds.length]!)
    samples.push({ labels: { ...labels }, value: cell.sum, metricName: `${name}_sum` })
    samples.push({ labels: { ...labels }, value: cell.count, metricName: `${name}_count` })
  }
  return samples
}

const base = (name: string) => (name.endsWith('_total') ? name.slice(0, -'_total'.length) : name)

/**
 * Register one metric in a prom-client registry as a collector: an object with the metric's name, help, type
 * and `get()`, read when the registry is scraped (the way prom-client registers the metrics it aggregates
 * from a cluster's workers). Its values come from the family's cells at that moment: a request never calls
 * prom-client. A registry that already holds a metric of that name (one not made here) throws, naming it.
 */
export function registerCollector(register: Registry<RegistryContentType>, family: Family<any>): void {
  const { metric } = family
  const collector = {
    name: metric.prometheusName,
    help: metric.description,
    type: metric.kind,
    aggregator: 'sum' as const,
    get() {
      // The registry may have renamed a counter (OpenMetrics drops `_total`, then adds it to each sample).
      const values =
        metric.kind === 'counter'
          ? counterSamples(family)
          : metric.kind === 'gauge'
            ? gaugeSamples(family)
            : histogramSamples(collector.name, family)
      return Promise.resolve({
        name: collector.name,
        help: collector.help,
        type: collector.type,
        aggregator: collector.aggregator,
        values,
      })
    },
    /** `register.resetMetrics()`: counts start again from 0. */
    reset() {
      for (const { cell } of family.series.values()) {
        if ('value' in cell) (cell as CounterCell).value = 0
        else if ('counts' in cell) {
          const h = cell as HistogramCell
          h.counts.fill(0)
          h.sum = 0
          h.count = 0
        }
      }
    },
  }
  const taken =
    register.getSingleMetric(metric.prometheusName) ?? register.getSingleMetric(base(metric.prometheusName))
  if (taken !== undefined) {
    throw new Error(
      `prometheus: the registry already has a metric named ${metric.prometheusName} that @floodgate/metrics did not make. Give Floodgate a registry of its own (new Registry()), or remove the other metric.`,
    )
  }
  register.registerMetric(collector as unknown as Metric)
}

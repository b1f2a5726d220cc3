import type { MetricsSink } from '@floodgate/core'
import type { MetricDefinition } from '@floodgate/core/internal'
import { parseOptions } from '@floodgate/core/internal'
import { register as defaultRegistry, type Registry, type RegistryContentType } from 'prom-client'
import * as z from 'zod'
import {
  addReader,
  type CounterCell,
  counterCell,
  type Family,
  type GaugeCell,
  gaugeCell,
  type HistogramCell,
  histogramCell,
  seriesOf,
} from './cells.js'
import { bindingShape, type MetricsBindingOptions } from './options.js'
import { registerCollector } from './prometheus-collector.js'

/** The options of {@link prometheus}. */
export interface PrometheusOptions extends MetricsBindingOptions {
  /**
   * The prom-client registry the metrics are registered in; serve `await register.metrics()` at `/metrics`.
   * @default prom-client's default registry (`register`)
   * @example new Registry()
   */
  register?: Registry<RegistryContentType>
}

const REGISTRY_EXPECTED = "a prom-client Registry (new Registry(), or prom-client's register)"
const schema = z.strictObject({
  register: z
    .custom<Registry<RegistryContentType>>(
      (v) =>
        typeof v === 'object' &&
        v !== null &&
        typeof (v as Registry).registerMetric === 'function' &&
        typeof (v as Registry).getSingleMetric === 'function',
      { error: REGISTRY_EXPECTED },
    )
    .optional(),
  ...bindingShape,
})

/** The series of one registry: shared by every sink made for it, so two limiters count into one series. */
type Families = Map<string, Family<any>>
const byRegistry = new WeakMap<Registry<RegistryContentType>, Families>()

/**
 * A metrics sink for Prometheus through prom-client: `rateLimit({ metrics: prometheus({ register }) })`. Pass the
 * same sink (or another one for the same registry) to stores, queues and shedders. Each metric is registered
 * in `register` when Floodgate first reports it, under its Prometheus name (`floodgate_decisions_total`, ...:
 * see `docs/metrics.md`); requests add to plain numbers, which prom-client reads when it is scraped.
 *
 * @example
 * const register = new Registry()
 * const metrics = prometheus({ register })
 * app.use(rateLimit({ limit: 100, window: '1m', metrics }))
 * app.get('/metrics', async (_req, res) => res.type(register.contentType).send(await register.metrics()))
 */
export function prometheus(options: PrometheusOptions = {}): MetricsSink {
  const o = parseOptions(schema, options, 'prometheus')
  const register = o.register ?? defaultRegistry
  let families = byRegistry.get(register)
  if (families === undefined) {
    families = new Map()
    byRegistry.set(register, families)
  }
  const known = families
  const familyOf = <C>(metric: MetricDefinition): Family<C> => {
    let family = known.get(metric.name)
    if (family === undefined) {
      family = { metric, series: new Map() }
      known.set(metric.name, family)
      registerCollector(register, family)
    }
    return family
  }
  return {
    nearLimit: o.nearLimit,
    counter: (metric, labels) => seriesOf(familyOf<CounterCell>(metric), labels, counterCell).cell,
    histogram: (metric, labels) =>
      seriesOf(familyOf<HistogramCell>(metric), labels, () => histogramCell(metric.buckets ?? [])).cell,
    gauge: (metric, labels, read) =>
      addReader(seriesOf(familyOf<GaugeCell>(metric), labels, gaugeCell).cell, read),
  }
}

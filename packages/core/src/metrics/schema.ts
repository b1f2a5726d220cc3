import * as z from 'zod'
import type { MetricsSink } from './sink.js'

const SINK_EXPECTED =
  'a metrics sink such as prometheus({ register }) or openTelemetry({ meter }) (from @floodgate/metrics): an object with counter, histogram and gauge methods'

const isSink = (v: unknown): v is MetricsSink =>
  typeof v === 'object' &&
  v !== null &&
  ['counter', 'histogram', 'gauge'].every((m) => typeof (v as Record<string, unknown>)[m] === 'function')

/** A `metrics` option: a {@link MetricsSink}. */
export const metricsSinkSchema = z.custom<MetricsSink>(isSink, { error: SINK_EXPECTED })

const SHARE_EXPECTED = 'a share of the limit, a number > 0 and < 1'

/** A sink's `nearLimit`: a share of the limit, above 0 and below 1. */
export const nearLimitSchema = z
  .number({ error: SHARE_EXPECTED })
  .refine((n) => n > 0 && n < 1, { error: SHARE_EXPECTED })

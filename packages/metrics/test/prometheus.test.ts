// The Prometheus binding against a real prom-client Registry: names, types, help and units as the catalog has
// them, counts after real decisions, cumulative histogram buckets, gauges read at scrape time, one set of series
// per registry, OpenMetrics, resets, and bad options.

import { RateLimitConfigError } from '@floodgate/core'
import { createLoadShedder, createRateLimitHandler, METRICS } from '@floodgate/core/internal'
import { prometheus } from '@floodgate/metrics/prometheus'
import { requestInfo } from '@floodgate/test-harness'
import { AggregatorRegistry, Counter, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { timedCalls } from './timed-calls.js'

/** The value of one sample in the registry's JSON. */
async function sample(register: Registry, name: string, labels: Record<string, string | number>) {
  const metric = (await register.getMetricsAsJSON()).find((m) => m.name === name)
  const found = metric?.values.find(
    (v: any) =>
      (v.metricName ?? name) === name &&
      Object.entries(labels).every(([k, value]) => String(v.labels[k]) === String(value)),
  )
  return found?.value
}

describe('prometheus({ register })', () => {
  it('registers what a limiter reports under the Prometheus names, with the counts it decided', async () => {
    const register = new Registry()
    const handler = createRateLimitHandler({ limit: 2, window: '1m', metrics: prometheus({ register }) })
    for (let i = 0; i < 3; i++) await handler.handle(requestInfo())
    const text = await register.metrics()
    expect(text).toContain(`# HELP floodgate_requests_total ${METRICS.requests.description}`)
    expect(text).toContain('# TYPE floodgate_requests_total counter')
    expect(text).toContain('floodgate_requests_total{outcome="allowed"} 2')
    expect(text).toContain('floodgate_requests_total{outcome="limited"} 1')
    expect(text).toContain('floodgate_requests_total{outcome="skipped"} 0')
    expect(text).toContain('floodgate_decisions_total{policy="ip",outcome="limited"} 1')
    expect(text).toContain('floodgate_near_limit_total{policy="ip"} 1')
    expect(await sample(register, 'floodgate_decisions_total', { policy: 'ip', outcome: 'allowed' })).toBe(2)
    // Nothing of the stores' or queues' until something reports them.
    expect(text).not.toContain('floodgate_store_duration_seconds')
  })

  it('histograms: cumulative buckets up to +Inf, sum and count, in seconds', async () => {
    const register = new Registry()
    await timedCalls(prometheus({ register }), [0.2, 0.7, 3, 4000])
    const text = await register.metrics()
    const line = (le: string) =>
      text
        .split('\n')
        .find((l) => l.startsWith('floodgate_store_duration_seconds_bucket{') && l.includes(`le="${le}"`))
    expect(line('0.0001')).toMatch(/ 0$/)
    expect(line('0.00025')).toMatch(/ 1$/)
    expect(line('0.001')).toMatch(/ 2$/)
    expect(line('0.005')).toMatch(/ 3$/)
    expect(line('2.5')).toMatch(/ 3$/)
    expect(line('+Inf')).toMatch(/ 4$/)
    expect(line('+Inf')).toContain('{store="redis",operation="consume",le="+Inf"}')
    expect(text).toContain('floodgate_store_duration_seconds_count{store="redis",operation="consume"} 4')
    const sum = Number(
      text
        .split('\n')
        .find((l) => l.startsWith('floodgate_store_duration_seconds_sum'))!
        .split(' ')[1],
    )
    expect(sum).toBeCloseTo(4.0039, 6)
    expect(text).toContain('# TYPE floodgate_store_duration_seconds histogram')
  })

  it('gauges are read at scrape time; several readers of one label set add up; a removed one is gone', async () => {
    const register = new Registry()
    const sink = prometheus({ register })
    let open = 1
    const stop = sink.gauge(METRICS.circuitOpen, { store: 'redis' }, () => open)
    const stop2 = sink.gauge(METRICS.circuitOpen, { store: 'redis' }, () => 1)
    expect(await register.metrics()).toContain('floodgate_circuit_open{store="redis"} 2')
    open = 0
    expect(await register.metrics()).toContain('floodgate_circuit_open{store="redis"} 1')
    stop()
    stop2()
    expect(await register.metrics()).not.toContain('floodgate_circuit_open{')
  })

  it('one set of series per registry: sinks made twice for it count together; other registries apart', async () => {
    const register = new Registry()
    const other = new Registry()
    const a = createRateLimitHandler({ limit: 5, window: '1m', metrics: prometheus({ register }) })
    const b = createRateLimitHandler({
      limit: 5,
      window: '1m',
      prefix: 'b',
      metrics: prometheus({ register }),
    })
    const c = createRateLimitHandler({
      limit: 5,
      window: '1m',
      prefix: 'c',
      metrics: prometheus({ register: other }),
    })
    await a.handle(requestInfo())
    await b.handle(requestInfo())
    await c.handle(requestInfo())
    expect(await sample(register, 'floodgate_requests_total', { outcome: 'allowed' })).toBe(2)
    expect(await sample(other, 'floodgate_requests_total', { outcome: 'allowed' })).toBe(1)
  })

  it('a metric of the same name already in the registry is an error that names it', () => {
    const register = new Registry()
    new Counter({ name: 'floodgate_requests_total', help: 'mine', registers: [register] })
    expect(() => createRateLimitHandler({ metrics: prometheus({ register }) })).toThrow(
      /already has a metric named floodgate_requests_total/,
    )
  })

  it('OpenMetrics registries get their counter names right; resetMetrics starts counts again', async () => {
    const register = new Registry<typeof Registry.OPENMETRICS_CONTENT_TYPE>()
    register.setContentType(Registry.OPENMETRICS_CONTENT_TYPE)
    const shedder = createLoadShedder({ maxInFlight: 1, metrics: prometheus({ register }) })
    shedder.enter(requestInfo())
    shedder.enter(requestInfo())
    const text = await register.metrics()
    expect(text).toContain('# TYPE floodgate_shed counter')
    expect(text).toContain('floodgate_shed_total{priority="sheddable",cause="in_flight"} 1')
    expect(text).not.toContain('_total_total')
    register.resetMetrics()
    expect(await register.metrics()).toContain(
      'floodgate_shed_total{priority="sheddable",cause="in_flight"} 0',
    )
  })

  it("a cluster's workers: prom-client's AggregatorRegistry sums their series, histograms too", async () => {
    const workers = await Promise.all(
      [2, 3].map(async (n) => {
        const register = new Registry()
        const handler = createRateLimitHandler({
          limit: 100,
          window: '1m',
          metrics: prometheus({ register }),
        })
        for (let i = 0; i < n; i++) await handler.handle(requestInfo())
        await timedCalls(prometheus({ register }), [2])
        return register.getMetricsAsJSON()
      }),
    )
    const text = await AggregatorRegistry.aggregate(workers).metrics()
    expect(text).toContain('floodgate_requests_total{outcome="allowed"} 5')
    expect(text).toContain('floodgate_store_duration_seconds_count{store="redis",operation="consume"} 2')
    expect(text).toMatch(
      /floodgate_store_duration_seconds_bucket\{store="redis",operation="consume",le="0.0025"\} 2/,
    )
  })

  it('the default registry unless given one; bad options fail at creation, naming the option', async () => {
    const { register: global } = await import('prom-client')
    createRateLimitHandler({ metrics: prometheus() })
    expect(global.getSingleMetric('floodgate_requests_total')).toBeDefined()
    global.clear()
    expect(() => prometheus({ register: {} as Registry })).toThrow(RateLimitConfigError)
    expect(() => prometheus({ register: new Registry(), nearLimit: 1 })).toThrow(/prometheus\.nearLimit/)
    expect(() => prometheus({ registry: new Registry() } as never)).toThrow(/prometheus\.registry/)
  })
})

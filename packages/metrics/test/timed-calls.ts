import type { MetricsSink } from '@floodgate/core'
import { createStoreMetrics } from '@floodgate/core/internal'

/** Report store calls (`store="redis"`, `operation="consume"`) that took `durationsMs`, timed on a virtual clock. */
export async function timedCalls(sink: MetricsSink, durationsMs: readonly number[]): Promise<void> {
  let now = 0
  const store = createStoreMetrics({ sink, store: 'redis', operations: ['consume'], clock: () => now })!
  for (const ms of durationsMs) {
    const call = store.timed('consume', Promise.resolve())
    now += ms
    await call
  }
}

import type { StoreMetrics } from '@floodgate/core/internal'

/**
 * The metrics of each RedisStore that has a sink, for the stores built over one: a SyncedStore reports its
 * syncs through the RedisStore it wraps (the same `store="redis"` series, `operation="sync"`), so one `metrics`
 * option covers both. Not part of the public API.
 */
export const storeMetricsOf = new WeakMap<object, StoreMetrics>()

// The store instruments core gives a remote store (RedisStore, PostgresStore): call durations by operation,
// errors by kind, fail-mode activations, block-cache hits, the circuit's state read when collected.
import { fixedWindow, MemoryStore } from '@floodgate/core'
import { CallFailure, createStoreMetrics, failModeDecisions } from '@floodgate/core/internal'
import { recordingSink } from '@floodgate/test-harness'
import { describe, expect, it } from 'vitest'

const store = 'redis'

describe('store metrics', () => {
  it('without a sink: nothing to call', () => {
    expect(createStoreMetrics({ sink: undefined, store, operations: ['consume'] })).toBeUndefined()
  })

  it('times each call, failures included, in seconds, by operation', async () => {
    const sink = recordingSink()
    let now = 1000
    const metrics = createStoreMetrics({ sink, store, operations: ['consume', 'peek'], clock: () => now })!
    let answer: (value: string) => void = () => {}
    const timed = metrics.timed('consume', new Promise<string>((resolve) => (answer = resolve)))
    now += 2.5
    answer('reply')
    expect(await timed).toBe('reply')
    const failed = metrics.timed('peek', Promise.reject(new Error('down')))
    now += 500
    await expect(failed).rejects.toThrow('down')
    expect(sink.observations('floodgate.store.duration', { store, operation: 'consume' })).toEqual([0.0025])
    expect(sink.observations('floodgate.store.duration', { store, operation: 'peek' })).toEqual([0.5])
    // An operation the store did not declare is passed through, untimed.
    const call = Promise.resolve(1)
    expect(metrics.timed('sweep', call)).toBe(call)
  })

  it('errors by kind: timeout, connection, reply', () => {
    const sink = recordingSink()
    const metrics = createStoreMetrics({ sink, store, operations: [] })!
    metrics.failed(new CallFailure(new Error('timeout'), true, true))
    metrics.failed(new CallFailure(new Error('ECONNREFUSED'), false, true))
    metrics.failed(new CallFailure(new Error('ERR'), false, false))
    metrics.failed(new CallFailure(new Error('ERR'), false, false))
    const errors = (kind: string) => sink.count('floodgate.store.errors', { store, kind })
    expect([errors('timeout'), errors('connection'), errors('reply')]).toEqual([1, 1, 2])
  })

  it('fail-mode activations: every decision the fail mode takes, consume and consumeAll alike', async () => {
    const algorithm = fixedWindow({ limit: 5, window: '1m' })
    for (const failMode of ['open', 'closed', 'fallback'] as const) {
      const sink = recordingSink()
      const metrics = createStoreMetrics({ sink, store, operations: [] })
      const failing = failModeDecisions({
        failMode,
        fallback: new MemoryStore(),
        closedRetryAfterMs: 1000,
        metrics,
      })
      await failing.decide('consume', algorithm, 'k', 1, undefined)
      await failing.decideAll([{ algorithm, key: 'k', cost: 1 }], undefined)
      expect(sink.count('floodgate.fail_mode', { store, mode: failMode })).toBe(2)
    }
  })

  it("the circuit's state, read when collected, until the store closes; block-cache hits", () => {
    const sink = recordingSink()
    let open = false
    const metrics = createStoreMetrics({ sink, store, operations: [], circuitOpen: () => open })!
    expect(sink.gaugeValue('floodgate.circuit.open', { store })).toBe(0)
    open = true
    expect(sink.gaugeValue('floodgate.circuit.open', { store })).toBe(1)
    metrics.blockCacheHit()
    expect(sink.count('floodgate.block_cache.hits', { store })).toBe(1)
    metrics.close()
    expect(sink.gaugeValue('floodgate.circuit.open', { store })).toBeUndefined()
  })
})

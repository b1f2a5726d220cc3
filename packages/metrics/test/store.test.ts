// The store instruments core gives a remote store (RedisStore, PostgresStore): call durations by operation,
// errors by kind, the limiter's failMode activations, block-cache hits, the circuit's state read when collected.
import { createLimiter, fixedWindow, MemoryStore, type Store } from '@floodgate/core'
import { CallFailure, createStoreMetrics } from '@floodgate/core/internal'
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

  it('failMode activations, counted by the limiter: every decision its failMode takes, consume and peek alike', async () => {
    const algorithm = fixedWindow({ limit: 5, window: '1m' })
    const down: Store = {
      consume: () => Promise.reject(new Error('down')),
      peek: () => {
        throw new Error('down')
      },
      refund: () => undefined,
      reset: () => undefined,
      close: () => undefined,
    }
    for (const mode of ['open', 'closed', 'fallback'] as const) {
      const sink = recordingSink()
      const failMode = mode === 'fallback' ? { fallback: new MemoryStore() } : mode
      const limiter = createLimiter({ store: down, algorithm, failMode, metrics: sink })
      await limiter.consume('k')
      await limiter.peek('k')
      expect(sink.count('floodgate.fail_mode', { mode })).toBe(2)
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

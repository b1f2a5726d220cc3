// Each state decoder against the algorithm's own peek: if core changes a state layout, these fail.
import { EPSILON } from '@floodgate/core/internal'
import { algorithmCases } from '@floodgate/testing'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { readState, stateReader } from '../src/state/inner-state.js'

const requests = fc.array(
  fc.record({
    gap: fc.integer({ min: 0, max: 700 }),
    cost: fc.oneof(fc.constant(1), fc.integer({ min: 1, max: 3 })),
  }),
  { minLength: 1, maxLength: 60 },
)

/** What `peek(..., cost 1).remaining` must be, from the decoded state. */
const remainingFrom: Record<string, (s: Record<string, number>, max: number) => number> = {
  'fixed-window': (s, max) => max - s.count!,
  'sliding-window-log': (s, max) => max - s.count!,
  'sliding-window-counter': (s, max) => max - s.estimate!,
  'token-bucket': (s) => s.tokens!,
  'leaky-bucket': (s, max) => max - s.level!,
  gcra: (s) => s.available!,
  'calendar-quota': (s, max) => max - s.count!,
  concurrency: (s, max) => max - s.count!,
}

describe.each(algorithmCases)('the state reader of $name', ({ create }) => {
  it('agrees with the algorithm: the gauge field gives the remaining quota that peek reports', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2_000_000_000_000 }), requests, (start, sequence) => {
        const algorithm = create()
        const reader = stateReader(algorithm)
        const state = new Float64Array(algorithm.stateSize)
        const expected = remainingFrom[algorithm.kind]!
        // GCRA rounds fractional intervals with core's EPSILON; the others compute exactly in scaled integers
        const slack = algorithm.kind === 'gcra' ? EPSILON : 1e-9
        let now = start
        for (const { gap, cost } of sequence) {
          now += gap
          algorithm.consume(state, 0, now, cost)
          for (const later of [now, now + 1, now + 250]) {
            const decoded = readState(reader, state, later)
            const remaining = Math.max(0, Math.floor(expected(decoded, reader.gauge.max) + slack))
            expect(remaining).toBe(algorithm.peek(state, 0, later, 1).remaining)
            expect(decoded[reader.gauge.field]).toBeGreaterThanOrEqual(-1e-9)
            expect(decoded[reader.gauge.field]).toBeLessThanOrEqual(reader.gauge.max + 1e-9)
          }
        }
      }),
      { numRuns: 150 },
    )
  })

  it('reads a state decided at a large timestamp (2^40 ms) within the gauge, rounding included', () => {
    const algorithm = create()
    const reader = stateReader(algorithm)
    const state = new Float64Array(algorithm.stateSize)
    let now = 1_099_511_626_841
    for (const { gap, cost } of [
      { gap: 269, cost: 2 },
      { gap: 0, cost: 2 },
      { gap: 0, cost: 1 },
    ]) {
      now += gap
      algorithm.consume(state, 0, now, cost)
      const decoded = readState(reader, state, now)
      expect(decoded[reader.gauge.field]).toBeGreaterThanOrEqual(0)
      expect(decoded[reader.gauge.field]).toBeLessThanOrEqual(reader.gauge.max + 1e-9)
    }
  })

  it('reads a fresh state (all zeros) as a rested key', () => {
    const algorithm = create()
    const reader = stateReader(algorithm)
    const decoded = readState(reader, new Float64Array(algorithm.stateSize), 1_000)
    const rested = reader.gauge.reads === 'available' ? reader.gauge.max : 0
    expect(decoded[reader.gauge.field]).toBe(rested)
  })
})

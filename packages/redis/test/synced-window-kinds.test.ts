import { fixedWindow, slidingWindowCounter } from '@floodgate/core'
import { seededRandom } from '@floodgate/testing'
import { describe, expect, it } from 'vitest'
import { windowKindOf } from '../src/synced/window-kinds.js'

// A SyncedStore moves a key's view into the window of the decision being made (WindowKind.roll) before the
// algorithm's own admission would, so that the decisions after it are made on the slab alone. Rolling must change
// nothing any decision of that window sees: the same count at every moment of it, the same answers.
describe('WindowKind.roll', () => {
  const w = 60_000
  const S = Date.UTC(2026, 0, 1, 12)
  for (const algorithm of [
    fixedWindow({ limit: 50, window: w }),
    slidingWindowCounter({ limit: 50, window: w }),
  ]) {
    it(`${algorithm.kind}: the same count and the same decisions at every moment of the window rolled into`, () => {
      const kind = windowKindOf(algorithm)
      const random = seededRandom(7_919)
      for (let n = 0; n < 500; n++) {
        const state = new Float64Array(kind.stateSize)
        // A state of this window, of the one before, of an older one, or empty.
        const age = [0, 1, 2, 5][Math.floor(random() * 4)]!
        if (age < 5) state[0] = S - age * w
        for (let i = 1; i < state.length; i++) state[i] = Math.floor(random() * 60)
        const rolled = state.slice()
        kind.roll(rolled, 0, S, w)
        expect(rolled[0]).toBe(age === 0 ? state[0] : S)
        for (let k = 0; k < 8; k++) {
          const t = S + Math.floor(random() * w)
          expect(kind.used(rolled, 0, t, w)).toBe(kind.used(state, 0, t, w))
          const cost = 1 + Math.floor(random() * 10)
          expect(algorithm.peek(rolled, 0, t, cost)).toEqual(algorithm.peek(state, 0, t, cost))
        }
      }
    })
  }

  it('leaves a state of the same or a later window as it is', () => {
    const kind = windowKindOf(slidingWindowCounter({ limit: 50, window: w }))
    const state = new Float64Array([S + w, 3, 4])
    kind.roll(state, 0, S, w)
    expect([...state]).toEqual([S + w, 3, 4])
  })
})

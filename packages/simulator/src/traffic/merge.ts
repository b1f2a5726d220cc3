import { ArrivalsBuilder } from './builder.js'
import type { Arrivals, Traffic } from './types.js'

/** Two time-ordered columns as one; at equal times `a`'s requests come first. */
function mergeTwo(a: Arrivals, b: Arrivals): Arrivals {
  const out = new ArrivalsBuilder(a.at.length + b.at.length)
  const keysOf = (x: Arrivals) => x.keys.map((k) => out.key(k))
  const aKeys = keysOf(a)
  const bKeys = keysOf(b)
  let i = 0
  let j = 0
  while (i < a.at.length || j < b.at.length) {
    if (j >= b.at.length || (i < a.at.length && a.at[i]! <= b.at[j]!)) {
      out.push(a.at[i]!, aKeys[a.keyIndex?.[i] ?? 0], a.cost?.[i] ?? 1)
      i++
    } else {
      out.push(b.at[j]!, bKeys[b.keyIndex?.[j] ?? 0], b.cost?.[j] ?? 1)
      j++
    }
  }
  return out.build()
}

/**
 * Several patterns at once: a steady background with a burst on top, or two clients. Keys with the same
 * name are the same key.
 *
 * @example merge(steady({ rate: 5 }), burst({ at: '2s', count: 20 }))
 */
export function merge(...patterns: readonly Traffic[]): Traffic {
  if (patterns.length === 0) throw new RangeError('merge: give at least one traffic pattern')
  return {
    label: patterns.map((p) => p.label).join(' + '),
    arrivals(durationMs) {
      return patterns.map((p) => p.arrivals(durationMs)).reduce(mergeTwo)
    },
  }
}

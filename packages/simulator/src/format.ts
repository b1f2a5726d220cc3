const UNITS: readonly [number, string][] = [
  [86_400_000, 'd'],
  [3_600_000, 'h'],
  [60_000, 'm'],
  [1_000, 's'],
]

/** A duration in ms as people write it: `60000` -> `'1m'`, `1500` -> `'1.5s'`, `100` -> `'100ms'`. */
export function formatMs(ms: number): string {
  for (const [size, unit] of UNITS) {
    if (ms >= size && Number.isInteger((ms / size) * 1000)) return `${+(ms / size).toFixed(3)}${unit}`
  }
  return `${+ms.toFixed(3)}ms`
}

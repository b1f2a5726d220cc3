/** Small statistics functions shared by the suites. */

/** The p-th percentile (0..100) of an ascending array, by the nearest-rank method. */
export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN
  const rank = Math.ceil((p / 100) * sorted.length)
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1]
}

/** The median of any array of numbers (not modified). */
export function median(values) {
  const sorted = Float64Array.from(values).sort()
  const n = sorted.length
  if (n === 0) return Number.NaN
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2
}

/** Sort a copy of numeric samples, ascending (a Float64Array, so numbers sort as numbers). */
export function sorted(values) {
  return Float64Array.from(values).sort()
}

/** min, median, max and the spread ((max - min) / median) of a few repeated measurements. */
export function summarize(values) {
  const s = sorted(values)
  const med = median(s)
  return { min: s[0], median: med, max: s[s.length - 1], spread: (s[s.length - 1] - s[0]) / med, n: s.length }
}

/** The median and quartiles of a few measurements (non-finite ones left out), and the interquartile spread. */
export function quartiles(values) {
  const v = sorted(values.filter(Number.isFinite))
  const med = percentile(v, 50)
  const q1 = percentile(v, 25)
  const q3 = percentile(v, 75)
  return { median: med, q1, q3, min: v[0], max: v[v.length - 1], iqrSpread: (q3 - q1) / med, n: v.length }
}

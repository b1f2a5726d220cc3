/** A linear map from data to pixels. */
export interface Scale {
  (value: number): number
  readonly min: number
  readonly max: number
}

export function linearScale(min: number, max: number, from: number, to: number): Scale {
  const span = max - min || 1
  const scale = ((value: number) => from + ((value - min) / span) * (to - from)) as Scale
  return Object.assign(scale, { min, max })
}

/** About `count` round tick values (1, 2 or 5 x a power of ten apart) covering [min, max]. */
export function niceTicks(min: number, max: number, count = 6): number[] {
  const span = max - min
  if (!(span > 0)) return [min]
  const raw = span / count
  const power = 10 ** Math.floor(Math.log10(raw))
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? 10 * power
  const ticks: number[] = []
  for (let t = Math.ceil(min / step - 1e-9) * step; t <= max + step * 1e-9; t += step) {
    ticks.push(Number(t.toPrecision(12)))
  }
  return ticks
}

/** A round upper bound for an axis that must show `value`: 0-220 for a peak of 201. */
export function niceMax(value: number): number {
  if (!(value > 0)) return 1
  const ticks = niceTicks(0, value * 1.08, 5)
  const last = ticks[ticks.length - 1]!
  return last >= value * 1.04 ? last : last + (ticks[1]! - ticks[0]!)
}

/** A tick label: no float noise, no needless decimals. */
export const tickLabel = (value: number): string => String(Number(value.toPrecision(10)))

import type { ChartPanel, ChartSeries } from './chart-spec.js'
import { styleAt } from './palette.js'
import { niceMax, type Scale } from './scale.js'
import { el, px } from './svg.js'

/** The bars' tops when stacked: each series sits on the ones before it. */
export function stackBases(panel: ChartPanel): Map<ChartSeries, Float64Array> {
  const bases = new Map<ChartSeries, Float64Array>()
  let running: Float64Array | undefined
  for (const s of panel.series) {
    if (s.kind !== 'bars' || !panel.stacked) continue
    running ??= new Float64Array(s.y.length)
    bases.set(s, running.slice())
    for (let i = 0; i < s.y.length; i++) running[i]! += s.y[i]!
  }
  return bases
}

/** The top of a panel's y axis: a round number above its data and its rules. */
export function panelMax(panel: ChartPanel, bases: Map<ChartSeries, Float64Array>): number {
  let top = 0
  for (const s of panel.series) {
    const base = bases.get(s)
    for (let i = 0; i < s.y.length; i++) top = Math.max(top, s.y[i]! + (base ? base[i]! : 0))
  }
  for (const r of panel.rules ?? []) top = Math.max(top, r.y)
  return niceMax(top)
}

/** One series as SVG: a rect per bar (on `base` when stacked), or one path for a line or a step. */
export function drawSeries(
  s: ChartSeries,
  index: number,
  x: Scale,
  y: Scale,
  base: Float64Array | undefined,
  id: string,
) {
  const style = styleAt(s.style ?? index)
  const n = Math.min(s.x.length, s.y.length)
  const visible = (i: number) => s.x[i]! >= x.min && s.x[i]! <= x.max
  if (s.kind === 'bars') {
    const width = s.barWidth ?? (n > 1 ? s.x[1]! - s.x[0]! : 1)
    const fill = style.fill === 'hatch' ? `url(#${id}-hatch-${s.style ?? index})` : style.color
    let bars = ''
    for (let i = 0; i < n; i++) {
      if (s.y[i]! <= 0 || !visible(i)) continue
      const from = base ? base[i]! : 0
      const top = y(from + s.y[i]!)
      const left = x(s.x[i]!)
      const w = Math.max(1, x(s.x[i]! + width) - left - 0.6)
      bars += el('rect', {
        x: left,
        y: top,
        width: w,
        height: y(from) - top,
        fill,
        stroke: style.color,
        'stroke-width': 0.8,
      })
    }
    return bars
  }
  let d = ''
  let last: number | undefined
  for (let i = 0; i < n; i++) {
    if (!visible(i) && !(i + 1 < n && visible(i + 1)) && !(i > 0 && visible(i - 1))) continue
    const px_ = x(Math.min(Math.max(s.x[i]!, x.min), x.max))
    const py = y(Math.min(Math.max(s.y[i]!, y.min), y.max))
    if (last === undefined) d += `M${px(px_)} ${px(py)}`
    else d += s.kind === 'step' ? `H${px(px_)}V${px(py)}` : `L${px(px_)} ${px(py)}`
    last = py
  }
  if (s.kind === 'step' && n > 0 && last !== undefined) d += `H${px(x(x.max))}`
  return el('path', {
    d,
    fill: 'none',
    stroke: style.color,
    'stroke-width': style.width,
    'stroke-dasharray': style.dash || undefined,
    'stroke-linejoin': 'round',
  })
}

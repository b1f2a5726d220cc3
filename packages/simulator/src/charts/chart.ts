import { legend } from './legend.js'
import { ink, styleAt } from './palette.js'
import { linearScale, niceMax, niceTicks, type Scale, tickLabel } from './scale.js'
import { el, escapeXml, px } from './svg.js'

/** One data series: `'line'` joins the points, `'step'` holds each value until the next x, `'bars'` per x. */
export interface ChartSeries {
  readonly label: string
  readonly kind: 'line' | 'step' | 'bars'
  readonly x: ArrayLike<number>
  readonly y: ArrayLike<number>
  /** Index into the palette (default: the series' position in the chart). */
  readonly style?: number
  /** Bars: their width in x units (default: the gap between the first two x values). */
  readonly barWidth?: number
}

/** A horizontal reference line: the limit, the capacity. */
export interface ChartRule {
  readonly y: number
  readonly label: string
}

/** A text note pinned to a data point. */
export interface ChartNote {
  readonly x: number
  readonly y: number
  readonly text: string
  /** @default 'start' */
  readonly anchor?: 'start' | 'middle' | 'end'
}

/** One plot area with its own y axis; the panels of a chart share the x axis. */
export interface ChartPanel {
  /** A heading drawn over the panel. */
  readonly title?: string
  /** The y axis: its label with the unit, and its range (default 0 to a round number above the data). */
  readonly y: { readonly label: string; readonly min?: number; readonly max?: number }
  /** @default 190 */
  readonly height?: number
  readonly series: readonly ChartSeries[]
  readonly rules?: readonly ChartRule[]
  readonly notes?: readonly ChartNote[]
  /** Stack the bar series on one another (they must share x values). */
  readonly stacked?: boolean
}

/** A chart: a title, a shared x axis, one or more panels. */
export interface ChartSpec {
  readonly title: string
  readonly subtitle?: string
  /** A prefix for the ids inside the SVG, unique per page when several charts are inlined. @default 'chart' */
  readonly id?: string
  /** @default 760 */
  readonly width?: number
  /** The x axis: its label with the unit, its range, and labelled vertical marks (window boundaries). */
  readonly x: {
    readonly label: string
    readonly min: number
    readonly max: number
    readonly marks?: readonly { readonly x: number; readonly label: string }[]
  }
  readonly panels: readonly ChartPanel[]
}

const LEFT = 72
const RIGHT = 24
const PANEL_GAP = 40
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"'

/** The bars' tops when stacked: each series sits on the ones before it. */
function stackBases(panel: ChartPanel): Map<ChartSeries, Float64Array> {
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

function panelMax(panel: ChartPanel, bases: Map<ChartSeries, Float64Array>): number {
  let top = 0
  for (const s of panel.series) {
    const base = bases.get(s)
    for (let i = 0; i < s.y.length; i++) top = Math.max(top, s.y[i]! + (base ? base[i]! : 0))
  }
  for (const r of panel.rules ?? []) top = Math.max(top, r.y)
  return niceMax(top)
}

function drawSeries(
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

/**
 * Render a chart as a standalone SVG document: axes with their units, a legend, reference lines and notes.
 * Pure (a string in, a string out, no DOM), so the docs' pictures and the playground draw with the same code,
 * and the same data always gives the same bytes.
 *
 * @example renderChart({ title: 'Tokens', x: { label: 'time (s)', min: 0, max: 3 }, panels: [...] })
 */
export function renderChart(spec: ChartSpec): string {
  const width = spec.width ?? 760
  const id = spec.id ?? 'chart'
  const plotRight = width - RIGHT
  const x = linearScale(spec.x.min, spec.x.max, LEFT, plotRight)
  const all = spec.panels.flatMap((p) => p.series)
  const labelled = [...new Map(all.map((s, i) => [s.label, { ...s, style: s.style ?? i }])).values()]
  const key = legend(labelled, LEFT, plotRight, spec.subtitle ? 58 : 44, id)
  let top = key.bottom + (spec.panels[0]?.title ? 34 : 18)
  let body = ''
  const xTicks = niceTicks(spec.x.min, spec.x.max, 10)
  spec.panels.forEach((panel, p) => {
    const height = panel.height ?? 190
    const isLast = p === spec.panels.length - 1
    if (panel.title)
      body += el(
        'text',
        { x: LEFT, y: top - 6, 'font-size': 12.5, 'font-weight': 600, fill: ink.text },
        escapeXml(panel.title),
      )
    const bases = stackBases(panel)
    const y = linearScale(panel.y.min ?? 0, panel.y.max ?? panelMax(panel, bases), top + height, top)
    const clip = `${id}-clip-${p}`
    body += `<clipPath id="${clip}">${el('rect', { x: LEFT, y: top - 2, width: plotRight - LEFT, height: height + 4 })}</clipPath>`
    for (const t of niceTicks(y.min, y.max, 5)) {
      body += el('line', { x1: LEFT, x2: plotRight, y1: y(t), y2: y(t), stroke: ink.grid })
      body += el(
        'text',
        { x: LEFT - 8, y: y(t) + 4, 'font-size': 11, 'text-anchor': 'end', fill: ink.muted },
        tickLabel(t),
      )
    }
    for (const t of xTicks)
      body += el('line', { x1: x(t), x2: x(t), y1: top, y2: top + height, stroke: ink.grid })
    for (const m of spec.x.marks ?? []) {
      body += el('line', {
        x1: x(m.x),
        x2: x(m.x),
        y1: top,
        y2: top + height,
        stroke: ink.muted,
        'stroke-dasharray': '1 3',
      })
      if (p === 0)
        body += el(
          'text',
          { x: x(m.x) + 4, y: top + height - 6, 'font-size': 10.5, fill: ink.muted },
          escapeXml(m.label),
        )
    }
    let plotted = ''
    panel.series.forEach((s) => {
      plotted += drawSeries(s, all.indexOf(s), x, y, bases.get(s), id)
    })
    body += `<g clip-path="url(#${clip})">${plotted}</g>`
    for (const r of panel.rules ?? []) {
      body += el('line', {
        x1: LEFT,
        x2: plotRight,
        y1: y(r.y),
        y2: y(r.y),
        stroke: ink.rule,
        'stroke-width': 1.2,
        'stroke-dasharray': '4 4',
      })
      body += el(
        'text',
        { x: plotRight - 4, y: y(r.y) - 5, 'font-size': 11, 'text-anchor': 'end', fill: ink.rule },
        escapeXml(r.label),
      )
    }
    for (const n of panel.notes ?? []) {
      body += el(
        'text',
        { x: x(n.x), y: y(n.y), 'font-size': 11.5, 'text-anchor': n.anchor ?? 'start', fill: ink.text },
        escapeXml(n.text),
      )
    }
    body += el('line', { x1: LEFT, x2: plotRight, y1: top + height, y2: top + height, stroke: ink.axis })
    body += el('line', { x1: LEFT, x2: LEFT, y1: top, y2: top + height, stroke: ink.axis })
    const mid = top + height / 2
    body += el(
      'text',
      {
        x: 18,
        y: mid,
        'font-size': 12,
        'text-anchor': 'middle',
        fill: ink.text,
        transform: `rotate(-90 18 ${px(mid)})`,
      },
      escapeXml(panel.y.label),
    )
    for (const t of xTicks) {
      body += el('line', { x1: x(t), x2: x(t), y1: top + height, y2: top + height + 4, stroke: ink.axis })
      if (isLast)
        body += el(
          'text',
          { x: x(t), y: top + height + 17, 'font-size': 11, 'text-anchor': 'middle', fill: ink.muted },
          tickLabel(t),
        )
    }
    top += height + (isLast ? 0 : PANEL_GAP)
  })
  body += el(
    'text',
    { x: (LEFT + plotRight) / 2, y: top + 38, 'font-size': 12, 'text-anchor': 'middle', fill: ink.text },
    escapeXml(spec.x.label),
  )
  const heightTotal = top + 52
  const head =
    el(
      'text',
      { x: LEFT, y: 24, 'font-size': 16, 'font-weight': 700, fill: ink.text },
      escapeXml(spec.title),
    ) +
    (spec.subtitle
      ? el('text', { x: LEFT, y: 42, 'font-size': 12, fill: ink.muted }, escapeXml(spec.subtitle))
      : '')
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${px(heightTotal)}" width="${width}" height="${px(heightTotal)}" role="img" aria-labelledby="${id}-title" ${FONT}>`,
    `<title id="${id}-title">${escapeXml(spec.title)}</title>`,
    `<defs>${key.defs}</defs>`,
    el('rect', { width, height: heightTotal, fill: '#ffffff' }),
    head,
    key.body,
    body,
    '</svg>',
  ].join('\n')
}

import type { ChartPanel, ChartSeries, ChartSpec } from './chart-spec.js'
import { ink } from './palette.js'
import { linearScale, niceTicks, type Scale, tickLabel } from './scale.js'
import { drawSeries, panelMax, stackBases } from './series.js'
import { el, escapeXml, px } from './svg.js'

/** Where a panel is drawn, and what it shares with the other panels of its chart. */
export interface PanelFrame {
  /** The prefix of the ids inside the SVG. */
  readonly id: string
  /** The plot area's left and right edges, in px. */
  readonly left: number
  readonly right: number
  /** The panel's top, in px. */
  readonly top: number
  /** The shared x axis, its ticks and its labelled marks. */
  readonly x: Scale
  readonly xTicks: readonly number[]
  readonly marks: ChartSpec['x']['marks']
  /** Every series of the chart, in order: a series' position picks its default style. */
  readonly all: readonly ChartSeries[]
  /** The panel's position in the chart (the first labels the marks), and whether it is the last (it labels the x ticks). */
  readonly index: number
  readonly isLast: boolean
}

/** One panel as SVG: its title, grid, y axis, marks, series (clipped to the plot), rules and notes. */
export function drawPanel(panel: ChartPanel, frame: PanelFrame): string {
  const { id, left, right, top, x, xTicks, all, isLast } = frame
  const p = frame.index
  let body = ''
  const height = panel.height ?? 190
  if (panel.title)
    body += el(
      'text',
      { x: left, y: top - 6, 'font-size': 12.5, 'font-weight': 600, fill: ink.text },
      escapeXml(panel.title),
    )
  const bases = stackBases(panel)
  const y = linearScale(panel.y.min ?? 0, panel.y.max ?? panelMax(panel, bases), top + height, top)
  const clip = `${id}-clip-${p}`
  body += `<clipPath id="${clip}">${el('rect', { x: left, y: top - 2, width: right - left, height: height + 4 })}</clipPath>`
  for (const t of niceTicks(y.min, y.max, 5)) {
    body += el('line', { x1: left, x2: right, y1: y(t), y2: y(t), stroke: ink.grid })
    body += el(
      'text',
      { x: left - 8, y: y(t) + 4, 'font-size': 11, 'text-anchor': 'end', fill: ink.muted },
      tickLabel(t),
    )
  }
  for (const t of xTicks)
    body += el('line', { x1: x(t), x2: x(t), y1: top, y2: top + height, stroke: ink.grid })
  for (const m of frame.marks ?? []) {
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
      x1: left,
      x2: right,
      y1: y(r.y),
      y2: y(r.y),
      stroke: ink.rule,
      'stroke-width': 1.2,
      'stroke-dasharray': '4 4',
    })
    body += el(
      'text',
      { x: right - 4, y: y(r.y) - 5, 'font-size': 11, 'text-anchor': 'end', fill: ink.rule },
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
  body += el('line', { x1: left, x2: right, y1: top + height, y2: top + height, stroke: ink.axis })
  body += el('line', { x1: left, x2: left, y1: top, y2: top + height, stroke: ink.axis })
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
  return body
}

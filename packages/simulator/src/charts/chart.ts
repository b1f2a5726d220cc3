import type { ChartSpec } from './chart-spec.js'
import { legend } from './legend.js'
import { ink } from './palette.js'
import { drawPanel } from './panel.js'
import { linearScale, niceTicks } from './scale.js'
import { el, escapeXml, px } from './svg.js'

const LEFT = 72
const RIGHT = 24
const PANEL_GAP = 40
const FONT = 'font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif"'

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
    body += drawPanel(panel, {
      id,
      left: LEFT,
      right: plotRight,
      top,
      x,
      xTicks,
      marks: spec.x.marks,
      all,
      index: p,
      isLast,
    })
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

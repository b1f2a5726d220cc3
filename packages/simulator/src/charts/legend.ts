import { ink, styleAt } from './palette.js'
import { el, escapeXml } from './svg.js'

interface Entry {
  readonly label: string
  readonly kind: 'line' | 'step' | 'bars'
  readonly style: number
}

const SWATCH = 26
const CHAR_WIDTH = 6.6 // an estimate of 12 px sans-serif, to wrap the legend

/** The hatch pattern of a palette style, for bars. */
function hatch(id: string, style: number): string {
  const { color } = styleAt(style)
  return (
    `<pattern id="${id}-hatch-${style}" patternUnits="userSpaceOnUse" width="6" height="6" patternTransform="rotate(45)">` +
    `${el('rect', { width: 6, height: 6, fill: '#ffffff' })}${el('line', { x1: 1.5, y1: 0, x2: 1.5, y2: 6, stroke: color, 'stroke-width': 2.6 })}</pattern>`
  )
}

/**
 * The legend: one swatch per series (a line with its dash pattern, or a bar with its fill), wrapped into rows
 * between `left` and `right`, starting at `top`. Returns the `<defs>` the bars need and where it ends.
 */
export function legend(
  entries: readonly Entry[],
  left: number,
  right: number,
  top: number,
  id: string,
): { defs: string; body: string; bottom: number } {
  let defs = ''
  for (const style of new Set(entries.filter((e) => e.kind === 'bars').map((e) => e.style))) {
    if (styleAt(style).fill === 'hatch') defs += hatch(id, style)
  }
  let body = ''
  let x = left
  let y = top
  for (const entry of entries) {
    const width = SWATCH + 8 + entry.label.length * CHAR_WIDTH + 22
    if (x + width > right && x > left) {
      x = left
      y += 20
    }
    const style = styleAt(entry.style)
    if (entry.kind === 'bars') {
      const fill = style.fill === 'hatch' ? `url(#${id}-hatch-${entry.style})` : style.color
      body += el('rect', {
        x: x + 6,
        y: y - 9,
        width: 14,
        height: 12,
        fill,
        stroke: style.color,
        'stroke-width': 0.8,
      })
    } else {
      body += el('line', {
        x1: x,
        x2: x + SWATCH,
        y1: y - 3,
        y2: y - 3,
        stroke: style.color,
        'stroke-width': style.width,
        'stroke-dasharray': style.dash || undefined,
      })
    }
    body += el(
      'text',
      { x: x + SWATCH + 8, y: y + 1, 'font-size': 12, fill: ink.text },
      escapeXml(entry.label),
    )
    x += width
  }
  return { defs, body, bottom: entries.length > 0 ? y + 8 : top - 12 }
}

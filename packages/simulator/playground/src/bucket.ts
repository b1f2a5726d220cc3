import type { StateReader } from '@floodgate/simulator'

const WIDTH = 150
const HEIGHT = 190

/** The caption under the drawing: what the gauge counts. */
const captions: Record<string, string> = {
  tokens: 'tokens',
  available: 'requests available',
  level: 'requests queued',
  count: 'counted in the window',
  estimate: 'estimated in the window',
}

/**
 * The bucket, as SVG: a vessel filled to the gauge's share of its scale (tokens for a token bucket, the
 * queue for a leaky bucket, the count or the estimate for the windows), with the number written on it.
 */
export function drawBucket(reader: StateReader, state: Readonly<Record<string, number>>): string {
  const { field, max } = reader.gauge
  const value = Math.min(max, Math.max(0, state[field] ?? 0))
  const share = max > 0 ? value / max : 0
  const inner = HEIGHT - 24
  const level = 12 + inner * (1 - share)
  const shown = Number.isInteger(value) ? String(value) : value.toFixed(1)
  const colour = reader.gauge.reads === 'available' ? '#0b2d5b' : '#d55e00'
  return `<svg viewBox="0 0 ${WIDTH} ${HEIGHT + 40}" width="${WIDTH}" height="${HEIGHT + 40}" role="img" aria-label="${shown} of ${max} ${captions[field] ?? field}">
<defs><clipPath id="vessel"><path d="M15 10 L25 ${HEIGHT - 10} Q25 ${HEIGHT} 35 ${HEIGHT} L115 ${HEIGHT} Q125 ${HEIGHT} 125 ${HEIGHT - 10} L135 10 Z"/></clipPath></defs>
<g clip-path="url(#vessel)"><rect x="0" y="0" width="${WIDTH}" height="${HEIGHT}" fill="#f2f4f7"/>
<rect class="fill" x="0" y="${level.toFixed(1)}" width="${WIDTH}" height="${(HEIGHT - level).toFixed(1)}" fill="${colour}" opacity="0.85"/></g>
<path d="M15 10 L25 ${HEIGHT - 10} Q25 ${HEIGHT} 35 ${HEIGHT} L115 ${HEIGHT} Q125 ${HEIGHT} 125 ${HEIGHT - 10} L135 10" fill="none" stroke="#333" stroke-width="3"/>
<text x="75" y="${HEIGHT + 22}" text-anchor="middle" font-size="15" font-weight="600" fill="#1a1a1a" data-gauge="${field}" data-value="${value}">${shown} / ${max}</text>
<text x="75" y="${HEIGHT + 38}" text-anchor="middle" font-size="12" fill="#555">${captions[field] ?? field}</text>
</svg>`
}

// The docs' pictures are the script's output: regenerate them with
//   node packages/simulator/scripts/make-figures.mjs   (after building the packages)
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { figures } from '../scripts/figures.mjs'
import { luminance, palette } from '../src/charts/palette.js'
import { renderChart } from '../src/index.js'

const images = new URL('../../../docs/images/', import.meta.url)
const rendered = figures()

describe('the pictures in docs/algorithms.md', () => {
  it.each(rendered)('docs/images/$file is up to date with scripts/figures.mjs', ({ file, svg }) => {
    const checkedIn = readFileSync(new URL(file, images), 'utf8')
    expect(checkedIn === `${svg}\n`, `docs/images/${file} is out of date: run scripts/make-figures.mjs`).toBe(
      true,
    )
  })

  it.each(rendered)('$file is readable: a title, a legend, axes whose labels carry units', ({ svg }) => {
    expect(svg).toMatch(/<title id="[a-z]+-title">[^<]+<\/title>/)
    expect(svg).toContain('time (s)')
    const yLabels = [...svg.matchAll(/transform="rotate\(-90[^"]*"[^>]*>([^<]+)</g)].map((m) => m[1])
    expect(yLabels.length).toBeGreaterThan(0)
    for (const label of yLabels) expect(label).toMatch(/requests|tokens|\(ms\)/)
  })

  it('are referenced from docs/algorithms.md', () => {
    const doc = readFileSync(new URL('../algorithms.md', images), 'utf8')
    for (const { file } of rendered) expect(doc).toContain(`images/${file}`)
  })
})

describe('chart styles', () => {
  it('stay apart in greyscale: lines by dash pattern, bars of the same fill by lightness (>= 0.1)', () => {
    for (const [i, a] of palette.entries()) {
      for (const b of palette.slice(i + 1)) {
        expect(a.dash, `${a.color} and ${b.color}`).not.toBe(b.dash)
        if (a.fill === b.fill) {
          expect(
            Math.abs(luminance(a.color) - luminance(b.color)),
            `${a.color} and ${b.color}`,
          ).toBeGreaterThanOrEqual(0.1)
        }
      }
    }
  })

  it('render the same bytes for the same data, and escape text', () => {
    const spec = {
      title: 'A < B & C',
      x: { label: 'time (s)', min: 0, max: 2 },
      panels: [
        {
          y: { label: 'requests' },
          series: [{ label: '"q"', kind: 'line' as const, x: [0, 1, 2], y: [1, 3, 2] }],
        },
      ],
    }
    expect(renderChart(spec)).toBe(renderChart(spec))
    expect(renderChart(spec)).toContain('A &lt; B &amp; C')
    expect(renderChart(spec)).toContain('&quot;q&quot;')
  })
})

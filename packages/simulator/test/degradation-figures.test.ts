// The picture in docs/degradation.md is the script's output, computed by core's real components on a
// virtual clock: regenerate it with `node packages/simulator/scripts/degradation-figures.mjs` (after building).
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { degradationFigures } from '../scripts/degradation-figures.mjs'

const images = new URL('../../../docs/images/', import.meta.url)

describe('the picture in docs/degradation.md', async () => {
  const rendered = await degradationFigures()

  it.each(rendered)(
    'docs/images/$file is up to date with scripts/degradation-figures.mjs',
    ({ file, svg }) => {
      const checkedIn = readFileSync(new URL(file, images), 'utf8')
      expect(
        checkedIn === `${svg}\n`,
        `docs/images/${file} is out of date: run scripts/degradation-figures.mjs`,
      ).toBe(true)
    },
  )

  it('is referenced from docs/degradation.md, with a title and axes that carry units', () => {
    const doc = readFileSync(new URL('../degradation.md', images), 'utf8')
    for (const { file, svg } of rendered) {
      expect(doc).toContain(`images/${file}`)
      expect(svg).toContain('time (s)')
      expect(svg).toContain('requests / 100 ms')
      expect(svg).toMatch(/<title id="degradation-title">One burst, four answers<\/title>/)
    }
  })
})

// Every published package must load from plain Node, as ESM and as CommonJS, from its built dist.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const packagesDir = fileURLToPath(new URL('../../', import.meta.url))
const published = readdirSync(packagesDir)
  .map((dir) => join(packagesDir, dir))
  .filter((dir) => existsSync(join(dir, 'package.json')))
  .map((dir) => ({ dir, manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) }))
  .filter(({ manifest }) => !manifest.private)

const run = (dir: string, args: string[]) =>
  execFileSync(process.execPath, args, { cwd: dir, encoding: 'utf8' })

describe.each(published)('$manifest.name from its dist', ({ dir, manifest }) => {
  it('is built (run the build first: `npx turbo run build`)', () => {
    expect(existsSync(join(dir, 'dist')), `${manifest.name} has no dist/`).toBe(true)
  })

  // A package that names no `require` condition is ESM only (@floodgate/testing: vitest cannot be required).
  const commonJs = JSON.stringify(manifest.exports ?? {}).includes('"require"')

  if (!commonJs) {
    it('has no CommonJS entry to fall back on (ESM only, said by its exports)', () => {
      expect(manifest.main ?? '').not.toMatch(/\.cjs$/)
      expect(existsSync(join(dir, 'dist', 'index.cjs'))).toBe(false)
    })
  }

  it('imports as ESM and, where it ships CommonJS, requires as CommonJS, with the same exports', () => {
    const esm = run(dir, [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(manifest.name)}); console.log(JSON.stringify(Object.keys(m).sort()))`,
    ])
    const esmKeys = JSON.parse(esm).filter((k: string) => k !== 'default')
    expect(esmKeys.length).toBeGreaterThan(0)
    if (!commonJs) return
    const cjs = run(dir, [
      '-e',
      `const m = require(${JSON.stringify(manifest.name)}); console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default' && k !== '__esModule').sort()))`,
    ])
    expect(JSON.parse(cjs)).toEqual(esmKeys)
  })
})

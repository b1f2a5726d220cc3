// Every code Floodgate raises is explained in docs/errors.md, and that page lists nothing the code never
// raises: the sources and the page are read, and their codes compared.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const root = fileURLToPath(new URL('../../../../', import.meta.url))

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory())
      return entry.name === 'node_modules' || entry.name === 'dist' ? [] : sources(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

const CODE = /ERR_FLOODGATE_[A-Z0-9_]+/g
const packages = readdirSync(join(root, 'packages')).map((name) => join(root, 'packages', name, 'src'))
const raised = new Set(
  packages.flatMap((src) => {
    try {
      return sources(src).flatMap((file) => readFileSync(file, 'utf8').match(CODE) ?? [])
    } catch {
      return []
    }
  }),
)
const page = readFileSync(join(root, 'docs/errors.md'), 'utf8')
const documented = new Set([...page.matchAll(/^### (ERR_FLOODGATE_[A-Z0-9_]+)$/gm)].map((m) => m[1]!))

describe('docs/errors.md', () => {
  it('explains every code the sources raise', () => {
    expect([...raised].filter((code) => !documented.has(code)).sort()).toEqual([])
  })

  it('lists no code the sources never raise', () => {
    expect([...documented].filter((code) => !raised.has(code)).sort()).toEqual([])
  })

  it('gives each warning the heading its link points to (docs/errors.md#err_floodgate_...)', () => {
    for (const code of documented) expect(page).toContain(`### ${code}\n`)
  })
})

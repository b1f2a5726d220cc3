// The playground bundles for the browser with nothing Node-only in its import graph: core's algorithm path
// (and the simulator) must run in a browser.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'
import { afterAll, describe, expect, it } from 'vitest'
import { noNodeBuiltins } from '../playground/vite.config.js'

const configFile = fileURLToPath(new URL('../playground/vite.config.ts', import.meta.url))
const out = mkdtempSync(path.join(tmpdir(), 'floodgate-playground-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

describe('the playground build', () => {
  it('bundles for the browser with no Node built-in reaching it', async () => {
    await build({ configFile, build: { outDir: out, emptyOutDir: true }, logLevel: 'silent' })
    const files = readdirSync(path.join(out, 'assets'))
    expect(files.some((f) => f.endsWith('.js'))).toBe(true)
  }, 120_000)

  it('fails when a module imports a Node built-in, even one it never uses', async () => {
    const root = mkdtempSync(path.join(tmpdir(), 'floodgate-guard-'))
    try {
      writeFileSync(path.join(root, 'index.html'), '<script type="module" src="./main.js"></script>')
      writeFileSync(
        path.join(root, 'main.js'),
        "import { createHash } from 'node:crypto'\nexport const unused = createHash\n",
      )
      const bundling = build({
        root,
        configFile: false,
        plugins: [noNodeBuiltins()],
        build: { outDir: path.join(root, 'dist') },
        logLevel: 'silent',
      })
      await expect(bundling).rejects.toThrow(/"node:crypto" is a Node built-in, imported by .*main\.js/)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 60_000)
})

// The main entry must run in a browser: bundled for the browser, it reaches no Node built-in.
import { builtinModules } from 'node:module'
import { fileURLToPath } from 'node:url'
import { build, type Plugin } from 'esbuild'
import { describe, expect, it } from 'vitest'

const entry = (name: string) => fileURLToPath(new URL(`../src/${name}.ts`, import.meta.url))
const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]))

/** Records every Node built-in the bundle would import (esbuild would otherwise leave some external). */
function noNodeBuiltins(found: string[]): Plugin {
  return {
    name: 'no-node-builtins',
    setup(b) {
      b.onResolve({ filter: /.*/ }, (args) => {
        if (builtins.has(args.path) || args.path.startsWith('node:')) {
          found.push(`${args.path} (from ${args.importer})`)
          return { path: args.path, external: true }
        }
        return undefined
      })
    },
  }
}

/** Bundle one of the package's entries, or a snippet that imports them. */
async function bundle(source: { entry: string } | { snippet: string }) {
  const found: string[] = []
  const result = await build({
    ...('entry' in source
      ? { entryPoints: [entry(source.entry)] }
      : { stdin: { contents: source.snippet, resolveDir: fileURLToPath(new URL('.', import.meta.url)) } }),
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'esm',
    minify: true,
    logLevel: 'silent',
    plugins: [noNodeBuiltins(found)],
  })
  return { found, code: result.outputFiles[0]!.text }
}

describe('browser', () => {
  it('the main entry bundles for the browser with no Node built-in, no process, no Buffer', async () => {
    const { found, code } = await bundle({ entry: 'index' })
    expect(found).toEqual([])
    expect(code).not.toMatch(/\bprocess\.|\bBuffer\b|\brequire\(/)
    // Small enough for a page: the whole client, minified.
    expect(code.length).toBeLessThan(20_000)
  })

  it('the check can fail: an import of a Node built-in, with or without `node:`, is caught', async () => {
    const direct = await bundle({ snippet: "export { createServer } from 'node:http'" })
    expect(direct.found).toEqual(['node:http (from <stdin>)'])
    const bare = await bundle({
      snippet: "export { Readable } from 'stream'; export * from '../src/index.ts'",
    })
    expect(bare.found).toEqual(['stream (from <stdin>)'])
  })
})

// The vitest config that runs the adapter conformance suite on an app's installed packages instead of the
// workspace's sources: examples/helpers/packed-adapter-suite.test.ts installs the packed tarballs beside one
// framework major in a fresh app outside the repository, then runs
//
//   FLOODGATE_PACKED_APP=<the app's folder> FLOODGATE_PACKED_NAMES='{"express4":"express",...}' \
//   FLOODGATE_PACKED_REPORT=<report.json> vitest run --config examples/helpers/packed-adapter-suite.config.ts
//
// Every name of FLOODGATE_PACKED_NAMES (what the suite imports: `@floodgate/express`, `express4`) resolves to
// the entry point Node would load for `import` from the app's node_modules (the package it names there:
// `express4` is the app's `express`). The private packages (the suite, its harness, and @floodgate/testing,
// which must share the runner's vitest) stay on the workspace's sources, as in the root config; they import
// `@floodgate/core` and get the app's too. The setup file checks that each name really loads the app's copy.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import rootConfig from '../../vitest.config.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))
const app = process.env.FLOODGATE_PACKED_APP
const names: Record<string, string> = JSON.parse(process.env.FLOODGATE_PACKED_NAMES ?? '{}')
const report = process.env.FLOODGATE_PACKED_REPORT
if (!app || Object.keys(names).length === 0 || !report) {
  throw new Error(
    'packed-adapter-suite.config.ts needs FLOODGATE_PACKED_APP (an app folder), FLOODGATE_PACKED_NAMES (a JSON ' +
      'object: each name the suite imports -> the package of the app behind it) and FLOODGATE_PACKED_REPORT (a file).',
  )
}

/** The file Node loads for `import specifier` from `app`: what the package `exports` for `import`, else its `main`. */
function entryOf(app: string, specifier: string): string {
  const parts = specifier.split('/')
  const nameLength = specifier.startsWith('@') ? 2 : 1
  const dir = join(app, 'node_modules', ...parts.slice(0, nameLength))
  const subpath = ['.', ...parts.slice(nameLength)].join('/')
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
  const pick = (target: unknown): string | undefined => {
    if (typeof target === 'string') return target
    if (Array.isArray(target)) return target.map(pick).find(Boolean)
    if (target && typeof target === 'object') {
      const condition = Object.keys(target).find((key) => ['node', 'import', 'default'].includes(key))
      return condition === undefined ? undefined : pick((target as Record<string, unknown>)[condition])
    }
    return undefined
  }
  const { exports } = pkg
  // no `exports`: `main` (or index.js), as `require` finds it
  if (exports === undefined) return createRequire(join(app, 'package.json')).resolve(specifier)
  const bySubpath =
    typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports)[0]?.startsWith('.')
  const target = pick(bySubpath ? exports[subpath] : subpath === '.' ? exports : undefined)
  if (!target) throw new Error(`${specifier}: ${dir}/package.json exports no ${subpath} for import.`)
  return join(dir, target)
}

/** Each name the suite imports -> the app's file behind it. */
const packed = Object.fromEntries(
  Object.entries(names).map(([specifier, pkg]) => [specifier, entryOf(app, pkg)]),
)
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
const aliases = { ...(rootConfig.resolve?.alias as Record<string, string>), ...packed }

export default defineConfig({
  root: ROOT,
  resolve: {
    // whole names only: `@floodgate/core` must not take `@floodgate/core/internal`, nor `koa` a `koa/...`
    alias: Object.entries(aliases).map(([name, replacement]) => ({
      find: new RegExp(`^${escapeRegExp(name)}$`),
      replacement,
    })),
  },
  test: {
    include: ['packages/adapter-suite/test/conformance.test.ts'],
    setupFiles: [fileURLToPath(new URL('./packed-adapter-suite.setup.ts', import.meta.url))],
    provide: { packedFiles: packed },
    pool: 'forks',
    maxWorkers: 1,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['dot', 'json'],
    outputFile: { json: report },
  },
})

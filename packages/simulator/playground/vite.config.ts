import { isBuiltin } from 'node:module'
import { fileURLToPath } from 'node:url'
import { defineConfig, type Plugin } from 'vite'

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/**
 * Fail the build when any module reaching the page imports a Node built-in (`node:crypto`, `net`, ...): the
 * playground runs core's algorithms in the browser, so their import graph must hold nothing Node-only.
 * Checked when a module imports it, before tree shaking, so an unused import fails too.
 */
export function noNodeBuiltins(): Plugin {
  return {
    name: 'floodgate:no-node-builtins',
    apply: 'build',
    enforce: 'pre',
    resolveId(source, importer) {
      if (isBuiltin(source)) {
        this.error(
          `"${source}" is a Node built-in, imported by ${importer ?? 'the page'}: the playground runs in the browser`,
        )
      }
      return null
    },
  }
}

/** The playground: the real @floodgate/core and @floodgate/simulator, from their sources. */
export default defineConfig({
  root: here('.'),
  resolve: {
    alias: [
      { find: /^@floodgate\/core$/, replacement: here('../../core/src/index.ts') },
      { find: /^@floodgate\/core\/internal$/, replacement: here('../../core/src/internal.ts') },
      { find: /^@floodgate\/simulator$/, replacement: here('../src/index.ts') },
    ],
  },
  plugins: [noNodeBuiltins()],
  server: { host: '127.0.0.1', port: 5173, fs: { allow: [here('../../..')] } },
  preview: { host: '127.0.0.1', port: 4173 },
  build: { outDir: here('dist'), emptyOutDir: true, target: 'es2022' },
})

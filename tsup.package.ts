import { defineConfig, type Options } from 'tsup'

/**
 * How every published package is built: ESM and CommonJS, with types and source maps, for Node 20. With
 * several entries, the modules they share are one copy (a class stays one class across entries).
 *
 * zod is built in, only the parts the package's options use (`import * as z from 'zod'`, so that the bundler
 * keeps only the functions named): imported whole, zod 4 adds 3.4 MB to an app's live heap (its locales,
 * every schema kind, their source text), which every full garbage collection marks again, and an Express
 * server collects fully every few hundred requests (`node bench/suites/http/footprint.mjs`). zod stays a
 * dependency for the types the packages share with each other.
 *
 * @example export default packageBuild(['src/index.ts', 'src/internal.ts'])
 */
export function packageBuild(entry: string[], options: Options = {}) {
  return defineConfig({
    entry,
    splitting: entry.length > 1,
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    noExternal: ['zod'],
    ...options,
  })
}

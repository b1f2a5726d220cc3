import { defineConfig, type Options } from 'tsup'

/**
 * How every published package is built: ESM and CommonJS, with types and source maps, for Node 20. With
 * several entries, the modules they share are one copy (a class stays one class across entries).
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
    ...options,
  })
}

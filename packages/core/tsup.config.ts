import { defineConfig } from 'tsup'

export default defineConfig({
  // Both entries share one copy of every module (classes stay one class), in ESM and in CJS.
  entry: ['src/index.ts', 'src/internal.ts'],
  splitting: true,
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
})

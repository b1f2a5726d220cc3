import { defineConfig } from 'tsup'

export default defineConfig({
  // One entry per binding, so importing one never loads the other's peer; shared code in one chunk.
  entry: ['src/index.ts', 'src/prometheus.ts', 'src/opentelemetry.ts'],
  splitting: true,
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
})

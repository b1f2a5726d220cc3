import { defineConfig } from 'tsup'

export default defineConfig({
  // The main entry runs in browsers too; the undici interceptor has its own (`@floodgate/client/undici`).
  entry: ['src/index.ts', 'src/undici.ts'],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'es2022',
})

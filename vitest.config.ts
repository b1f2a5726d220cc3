import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'

const pkg = (name: string, entry = 'index') =>
  fileURLToPath(new URL(`./packages/${name}/src/${entry}.ts`, import.meta.url))

// Tests run against the TypeScript sources; the import tests in each package check the built dist.
export default defineConfig({
  resolve: {
    alias: {
      '@floodgate/core/internal': pkg('core', 'internal'),
      '@floodgate/core': pkg('core'),
      '@floodgate/redis': pkg('redis'),
      '@floodgate/express': pkg('express'),
      '@floodgate/fastify': pkg('fastify'),
      '@floodgate/koa': pkg('koa'),
      '@floodgate/testing': pkg('testing'),
      '@floodgate/test-harness': pkg('test-harness'),
      '@floodgate/adapter-suite': pkg('adapter-suite'),
      '@floodgate/client/undici': pkg('client', 'undici'),
      '@floodgate/client': pkg('client'),
      '@floodgate/simulator': pkg('simulator'),
      '@floodgate/postgres': pkg('postgres'),
      '@floodgate/metrics/prometheus': pkg('metrics', 'prometheus'),
      '@floodgate/metrics/opentelemetry': pkg('metrics', 'opentelemetry'),
      '@floodgate/metrics': pkg('metrics'),
    },
  },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'examples/*/test/**/*.test.ts', 'examples/*/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 20_000,
    hookTimeout: 30_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
})

#!/usr/bin/env node
// Writes docs/images/client-herd.svg and prints the table docs/client.md shows: the thundering herd of
// scripts/herd.ts, run with every kind of jitter. Deterministic (virtual time, seeded randomness): the herd
// test regenerates the picture and fails when the checked-in one differs.
//
//   node packages/client/scripts/herd-plot.mjs          (or: npx pnpm@12.4.2 --filter @floodgate/client herd)
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build } from 'esbuild'

const here = (path) => fileURLToPath(new URL(path, import.meta.url))
const out = mkdtempSync(join(tmpdir(), 'floodgate-herd-'))
try {
  // The TypeScript sources (the client's and the core's), bundled for this run only.
  await build({
    entryPoints: [here('./herd.ts')],
    outfile: join(out, 'herd.mjs'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    alias: {
      '@floodgate/core': here('../../core/src/index.ts'),
      '@floodgate/core/internal': here('../../core/src/internal.ts'),
    },
    logLevel: 'warning',
  })
  const { simulateAll, renderHerdSvg, herdTable } = await import(pathToFileURL(join(out, 'herd.mjs')).href)
  const results = await simulateAll()
  const svg = here('../../../docs/images/client-herd.svg')
  writeFileSync(svg, renderHerdSvg(results))
  console.log(herdTable(results))
  console.log(`\nwrote ${svg}`)
} finally {
  rmSync(out, { recursive: true, force: true })
}

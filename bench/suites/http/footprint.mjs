// The live heap each piece adds to a process: V8's heapUsed after two full collections, each case in a process
// of its own. A full collection marks the whole live heap, so on a server whose requests promote objects to the
// old generation (Express's do), every byte here is marked again at each one.
//
//   node bench/suites/http/footprint.mjs
//
// Imports the built packages: build first (`npx turbo run build`).
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url))
// zod is imported from core's folder, as core imports it (it is not a dependency of the bench's).
const CORE_DIR = fileURLToPath(new URL('../../../packages/core/', import.meta.url))

/** Each case: the code the process runs, and the folder its imports resolve from. */
const CASES = {
  'an empty process': ['', BENCH_DIR],
  'zod 4 imported': ["await import('zod')", CORE_DIR],
  '@floodgate/core imported': ["await import('@floodgate/core')", BENCH_DIR],
  'Express, a bare app': [
    "const { default: express } = await import('express'); globalThis.app = express()",
    BENCH_DIR,
  ],
  'Express with express-rate-limit': [
    `const { default: express } = await import('express'); globalThis.app = express()
    const { rateLimit } = await import('express-rate-limit'); app.use(rateLimit({ windowMs: 60_000, limit: 100 }))`,
    BENCH_DIR,
  ],
  'Express with Floodgate': [
    `const { default: express } = await import('express'); globalThis.app = express()
    const { rateLimit } = await import('@floodgate/express'); app.use(rateLimit({ limit: 100, window: '1m' }))`,
    BENCH_DIR,
  ],
}

function heapOf([code, cwd]) {
  const script = `${code}\nglobalThis.gc(); globalThis.gc(); console.log(process.memoryUsage().heapUsed)`
  const out = execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], {
    cwd,
    encoding: 'utf8',
  })
  return Number(out.trim())
}

const mb = (bytes) => (bytes / 1e6).toFixed(2)
const empty = heapOf(CASES['an empty process'])
for (const [name, spec] of Object.entries(CASES)) {
  const heap = heapOf(spec)
  console.log(
    `${name}: ${mb(heap)} MB${spec === CASES['an empty process'] ? '' : ` (+${mb(heap - empty)} MB over an empty process)`}`,
  )
}

// CPU instructions per HTTP request, counted by valgrind's callgrind (the same count whatever else the machine
// is doing), of the http suite's hello-world servers on the memory store: bare, the peer, Floodgate as the
// README shows it, and Floodgate without its rate-limit headers, so that what a limiter adds to a request, and
// which part of it the headers are, can be read without the timed suite's noise. The server and its client run
// in one process (request-loop.mjs beside it): the client's share is the same in every row, so the differences
// between rows are the server's.
//
//   node bench/suites/http/count.mjs                    Fastify and Koa (a few minutes)
//   node bench/suites/http/count.mjs express fastify    the frameworks named
//
// Imports the built packages: build first (`npx turbo run build`).
import { fileURLToPath } from 'node:url'
import { hasValgrind, instructionsPerOperation } from '../../lib/instructions.mjs'

const LIMIT = 1e9 // a quota nobody reaches: every request passes
const CONFIGS = [
  { id: 'bare', limiter: 'none' },
  { id: 'peer', limiter: 'peer' },
  { id: 'floodgate', limiter: 'floodgate' },
  { id: 'floodgate, no headers', limiter: 'floodgate', floodgateOptions: { headers: false } },
]

/** Instructions per request of each configuration of `framework`, by configuration id. */
export function countRequests(framework) {
  const script = fileURLToPath(new URL('request-loop.mjs', import.meta.url))
  const counts = {}
  for (const { id, ...config } of CONFIGS) {
    const spec = { framework, store: 'memory', limit: LIMIT, ...config }
    counts[id] = instructionsPerOperation(script, [JSON.stringify(spec)], { small: 2_000, large: 6_000 })
  }
  return counts
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
  const frameworks = process.argv.slice(2)
  for (const framework of frameworks.length > 0 ? frameworks : ['fastify', 'koa']) {
    const counts = countRequests(framework)
    const bare = counts.bare
    const cells = Object.entries(counts).map(
      ([id, n]) =>
        `${id} ${Math.round(n).toLocaleString('en')}${id === 'bare' ? '' : ` (+${Math.round(n - bare).toLocaleString('en')}, ${(bare / n).toFixed(2)}x bare)`}`,
    )
    console.log(`${framework}: ${cells.join('; ')} instructions per request`)
  }
}

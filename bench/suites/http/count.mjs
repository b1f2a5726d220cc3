// CPU instructions per HTTP request, counted by valgrind's callgrind (the same count whatever else the machine
// is doing), of the http suite's hello-world servers on the memory store: bare, the peer, Floodgate as the
// README shows it, Floodgate with the three `X-RateLimit-*` headers the peers send (`headers: 'legacy'`), and
// Floodgate without its rate-limit headers, so that what a limiter adds to a request, and which part of it the
// headers are, can be read without the timed suite's noise. The server and its client run in one process
// (request-loop.mjs beside it): the client's share is the same in every row, so the differences between rows
// are the server's and the client's reading of a longer response head.
//
// Each configuration is counted as slice-diff.mjs counts it: 8,000 requests after a warm-up with a full
// collection in it, in one process, so that start-up, the JIT's first compilations and where a full collection
// happens to fall do not move the figure (counted as the difference of a 2,000- and a 6,000-request run instead,
// one run on Fastify gave Floodgate +25,544 instructions over bare with its headers and +138,170 without them).
//
//   node bench/suites/http/count.mjs                    Fastify and Koa (about 3 minutes per row)
//   node bench/suites/http/count.mjs express fastify    the frameworks named
//
// Imports the built packages: build first (`npx turbo run build`).
import { fileURLToPath } from 'node:url'
import { hasValgrind } from '../../lib/instructions.mjs'
import { profile } from './slice-diff.mjs'

const LIMIT = 1e9 // a quota nobody reaches: every request passes
const CONFIGS = [
  { id: 'bare', limiter: 'none' },
  { id: 'peer', limiter: 'peer' },
  { id: 'floodgate', limiter: 'floodgate' },
  { id: "floodgate, headers: 'legacy'", limiter: 'floodgate', floodgateOptions: { headers: 'legacy' } },
  { id: 'floodgate, no headers', limiter: 'floodgate', floodgateOptions: { headers: false } },
]

/** Instructions per request of each configuration of `framework`, by configuration id. */
export function countRequests(framework) {
  const counts = {}
  for (const { id, ...config } of CONFIGS) {
    const spec = { framework, store: 'memory', limit: LIMIT, ...config }
    counts[id] = profile(spec).get('PROGRAM TOTALS') ?? Number.NaN
  }
  return counts
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
  const frameworks = process.argv.slice(2)
  for (const framework of frameworks.length > 0 ? frameworks : ['fastify', 'koa']) {
    const counts = countRequests(framework)
    const bare = counts.bare
    const peerAdds = counts.peer - bare
    const cells = Object.entries(counts).map(([id, n]) => {
      if (id === 'bare') return `${id} ${Math.round(n).toLocaleString('en')}`
      const added = n - bare
      const share = id === 'peer' ? '' : `, ${(added / peerAdds).toFixed(2)}x the peer's added`
      return `${id} ${Math.round(n).toLocaleString('en')} (+${Math.round(added).toLocaleString('en')}${share})`
    })
    console.log(`${framework}: ${cells.join('; ')} instructions per request`)
  }
}

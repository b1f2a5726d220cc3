// `npm run demo`: a real Express app on 127.0.0.1, the in-memory store, and a burst of real HTTP requests.
// Scene 1: one limit (5 requests per 30 s per IP): what passes, what gets 429, the headers and the body.
// Scene 2: layered limits (a per-IP token bucket + a stricter per-endpoint limit on POST /export), checked
// together, so a refused request spends nothing in any of them.

let core
let rateLimit
let express
try {
  core = await import('@floodgate/core')
  ;({ rateLimit } = await import('@floodgate/express'))
  express = (await import('express')).default
} catch (error) {
  console.error(
    `The demo imports the built packages, and they could not be loaded (${error.code ?? error.message}).\n` +
      'Run it with `npm run demo` (it installs and builds first), or build with `npx turbo run build`.',
  )
  process.exit(1)
}
const { MemoryStore, slidingWindowLog, tokenBucket } = core

const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s)
const colour = (status) => {
  const text = String(status)
  if (!process.stdout.isTTY) return text
  return status === 429 ? `\x1b[31m${text}\x1b[0m` : `\x1b[32m${text}\x1b[0m`
}

/** Start an Express app on 127.0.0.1 and a free port; returns its base URL and a close function. */
function listen(app) {
  return new Promise((resolve, reject) => {
    const server = app.listen(0, '127.0.0.1', (error) => {
      if (error) return reject(error)
      const { port } = server.address()
      resolve({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise((done) => {
            server.close(() => done())
            server.closeAllConnections()
          }),
      })
    })
  })
}

/** Print rows as a small table: one line per request. */
function table(columns, rows) {
  const widths = columns.map((c, i) => Math.max(c.length, ...rows.map((r) => String(r[i]).length)))
  const line = (cells) =>
    cells
      .map((c, i) => String(c).padEnd(widths[i]))
      .join('  ')
      .trimEnd()
  console.log(`  ${bold(line(columns))}`)
  for (const row of rows) {
    const text = line(row)
    const status = String(row[2])
    console.log(`  ${text.replace(` ${status} `, ` ${colour(Number(status))} `)}`)
  }
}

/** Show the response's rate-limit headers, the way they arrive on the wire. */
function showHeaders(res, names) {
  for (const name of names) {
    const value = res.headers.get(name)
    if (value !== null) console.log(`    ${name}: ${value}`)
  }
}

const RATE_HEADERS = ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy']

// ─── Scene 1: one limit ──────────────────────────────────────────────────────────────────────────────────
{
  const app = express()
  app.use(rateLimit({ limit: 5, window: '30s' })) // per IP, sliding window counter, draft-6 headers
  app.get('/hello', (_req, res) => {
    res.json({ hello: 'world' })
  })
  const server = await listen(app)

  console.log(bold('\nScene 1: rateLimit({ limit: 5, window: "30s" }): 5 requests per 30 s per IP\n'))
  console.log(`  Express on ${server.url}, in-memory store. A burst of 8 GET /hello:\n`)

  const rows = []
  let lastOk
  let firstRefused
  for (let i = 1; i <= 8; i++) {
    const res = await fetch(`${server.url}/hello`)
    const body = await res.text()
    if (res.status === 200) lastOk = { res, body }
    else firstRefused ??= { res, body }
    rows.push([
      i,
      'GET /hello',
      res.status,
      res.headers.get('RateLimit-Remaining') ?? '',
      res.headers.get('RateLimit-Reset') ?? '',
      res.headers.get('Retry-After') ?? '',
    ])
  }
  table(['#', 'request', 'status', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After'], rows)

  console.log(`\n  The last request that passed (${lastOk.res.status} OK):`)
  showHeaders(lastOk.res, RATE_HEADERS)
  console.log(`\n  The first refusal (${firstRefused.res.status} Too Many Requests):`)
  showHeaders(firstRefused.res, ['Retry-After', 'Cache-Control', 'Content-Type', ...RATE_HEADERS])
  console.log(`\n    ${firstRefused.body}`)
  console.log(
    '\n  Remaining never goes below 0 and seconds round up. Retry-After is when one more request passes;\n' +
      '  RateLimit-Reset is when the whole quota is back.',
  )
  explainSlidingWindow({
    limit: 5,
    windowSeconds: 30,
    retryAfter: Number(firstRefused.res.headers.get('Retry-After')),
    reset: Number(firstRefused.res.headers.get('RateLimit-Reset')),
  })
  await server.close()
}

/**
 * Why a sliding window counter asks a client to wait longer than its window: its counts live in windows aligned
 * to the clock, and a full window's requests keep weighing on the next window, less and less as it goes by.
 */
function explainSlidingWindow({ limit, windowSeconds, retryAfter, reset }) {
  const windowEnds = reset - windowSeconds
  const oneMore = windowSeconds / limit
  console.log(
    `\n  Why wait ${retryAfter} s, and ${reset} s for the whole quota, when the window is ${windowSeconds} s? The sliding\n` +
      `  window counter counts in ${windowSeconds} s windows aligned to the clock; these ${limit} requests fell in the\n` +
      `  one that ends in about ${windowEnds} s. After that they still weigh, as the previous window, by how much of\n` +
      `  it the last ${windowSeconds} s still cover: ${limit} x (1 - t/${windowSeconds}) at t seconds into the next window.\n` +
      `  One more request fits once that is ${limit - 1} or less, ${oneMore} s in (Retry-After: about ${windowEnds} + ${oneMore}),\n` +
      `  and they weigh nothing after a whole window (RateLimit-Reset: about ${windowEnds} + ${windowSeconds}). So a\n` +
      `  client that spent its quota can wait up to ${windowSeconds + oneMore} s for one request and up to ${2 * windowSeconds} s\n` +
      '  for the whole quota. The sliding window log is exact over every rolling window, at O(limit) memory:\n' +
      '  see docs/algorithms.md.',
  )
}

// ─── Scene 2: layered limits ─────────────────────────────────────────────────────────────────────────────
{
  const store = new MemoryStore()
  // Two limiters on one store share a policy with the same name and algorithm: one per-IP budget for the app.
  const perIp = {
    name: 'ip',
    key: 'ip',
    algorithm: tokenBucket({ capacity: 5, refillRate: 1, interval: '10s' }),
  }
  const exportLimit = {
    name: 'export',
    key: ['ip', 'endpoint'],
    algorithm: slidingWindowLog({ limit: 2, window: '1m' }),
  }

  const app = express()
  app.get('/search', rateLimit({ store, limits: [perIp], headers: 'draft-8' }), (_req, res) => {
    res.json({ results: [] })
  })
  app.post('/export', rateLimit({ store, limits: [perIp, exportLimit], headers: 'draft-8' }), (_req, res) => {
    res.json({ queued: true })
  })
  const server = await listen(app)

  console.log(bold('\nScene 2: layered limits, draft-8 headers (one item per policy)\n'))
  console.log('  "ip":     tokenBucket({ capacity: 5, refillRate: 1, interval: "10s" }) on every route')
  console.log('  "export": slidingWindowLog({ limit: 2, window: "1m" }) per IP, on POST /export only\n')

  const plan = [
    ['POST', '/export'],
    ['POST', '/export'],
    ['POST', '/export'],
    ['GET', '/search'],
    ['GET', '/search'],
    ['GET', '/search'],
    ['GET', '/search'],
  ]
  const rows = []
  for (const [method, path] of plan) {
    const res = await fetch(`${server.url}${path}`, { method })
    const body = await res.json()
    rows.push([
      rows.length + 1,
      `${method} ${path}`,
      res.status,
      res.status === 429 ? body.policy : '',
      res.headers.get('RateLimit') ?? '',
      res.headers.get('Retry-After') ?? '',
    ])
  }
  table(['#', 'request', 'status', 'refused by', 'RateLimit', 'Retry-After'], rows)
  console.log(
    '\n  The third export was refused by "export" and spent nothing from "ip": the searches still had\n' +
      '  3 tokens. A refusal carries Retry-After (seconds, rounded up); a good client waits that long,\n' +
      '  then retries with backoff and jitter. See docs/headers.md.\n',
  )
  await server.close()
}

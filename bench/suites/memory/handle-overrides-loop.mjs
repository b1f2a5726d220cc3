// A loop of `n` decisions of core's HTTP handler on the MemoryStore with a policy keyed by user, with and without
// overrides, for CPU instruction counts with bench/lib/instructions.mjs:
//
//   node bench/suites/memory/handle-overrides-loop.mjs <path to a build of core's index.js> <mode> <n>
//
// `mode`: `none` (no `overrides` option: the baseline), `miss` (100 exact identifiers and 10 patterns, none of
// which the caller matches: a Map lookup and the wildcard cache), `exact` (the caller is one of the 100: a Map
// lookup, and the override's algorithm decides), `wildcard` (the caller matches a pattern: a Map lookup, the
// wildcard cache, the override's algorithm). One caller, a quota nobody reaches, the outcome used in the same
// tick as the adapters do.
const [core, mode, count] = process.argv.slice(2)
// The handler is core's internal entry since the public surface was trimmed; an older build has it in index.js.
const index = await import(core.replace(/internal\.js$/, 'index.js'))
const { createRateLimitHandler } = index.createRateLimitHandler
  ? index
  : await import(core.replace(/index\.js$/, 'internal.js'))
const { fixedWindow } = index
const big = fixedWindow({ limit: 2e9, window: '1m' })
const overrides = {}
for (let i = 0; i < 100; i++) overrides[`customer-${i}`] = big
for (let i = 0; i < 10; i++) overrides[`*@tenant-${i}.example`] = big
const user = { none: 'someone', miss: 'someone', exact: 'customer-42', wildcard: 'ops@tenant-7.example' }[
  mode
]
if (user === undefined) throw new Error(`mode: none, miss, exact or wildcard, got ${mode}`)
// The policy's algorithm and the overrides' are of one kind and window (a fixed window of a minute), so the
// difference is the overrides' own work (the lookup, the override's key scope, its headers), not another
// algorithm's.
const handler = createRateLimitHandler({
  algorithm: fixedWindow({ limit: 1e9, window: '1m' }),
  key: 'user',
  user: (req) => req.user,
  ...(mode === 'none' ? {} : { overrides }),
})
const info = { ip: '203.0.113.7', method: 'GET', route: '/', path: '/', headers: {}, native: { user } }
let allowed = 0
async function run(n) {
  for (let i = 0; i < n; i++) {
    let outcome = handler.handle(info)
    if (outcome instanceof Promise) outcome = await outcome
    if (outcome.kind === 'pass') allowed++
  }
}
await run(30_000)
await run(Number(count))
if (allowed === 0) throw new Error('nothing was allowed')

// A loop of `n` decisions of core's HTTP handler on the MemoryStore, as handle-loop.mjs, with the app's own
// synchronous functions on every request: `skip`, `user`, a key function, a cost function and `onError`
// (never called: nothing fails). Every one goes through core's guard of app functions, so the before and after
// of a change to that guard shows here, for CPU instruction counts with bench/lib/instructions.mjs:
//
//   node bench/suites/memory/count.mjs handle-hooks-loop.mjs <path to a build of core's index.js>
const [core, count] = process.argv.slice(2)
const { createRateLimitHandler, slidingWindowCounter } = await import(core)
const handler = createRateLimitHandler({
  limits: [
    {
      name: 'user',
      key: (req) => req.user,
      cost: (req) => req.cost,
      algorithm: slidingWindowCounter({ limit: 1e9, window: '1m' }),
    },
  ],
  skip: (req) => req.internal === true,
  user: (req) => req.user,
  onError: () => {
    throw new Error('nothing fails in this loop')
  },
})
const info = {
  ip: '203.0.113.7',
  method: 'GET',
  route: '/',
  path: '/',
  headers: {},
  native: { user: 'alice', cost: 1, internal: false },
}
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

// A loop of `n` decisions of core's HTTP handler (the path every adapter takes) on the MemoryStore, for
// CPU instruction counts with bench/lib/instructions.mjs:
//
//   node bench/suites/memory/handle-loop.mjs <path to a build of core's index.js> [addresses] [ban] <n>
//
// With `ban`, the policy has `ban: { after: 10, within: '1m', for: '1h' }`: the cost of a ban check on a
// decision that allows (the store looks the key's ban up; nothing is counted).
//
// The outcome is used in the same tick when it is not a promise, as the adapters do, else awaited; one
// client address (or `addresses` of them in round robin), the README's defaults but for a quota nobody
// reaches. Passing another build of core (a worktree of an earlier commit) gives the before and after of a
// change to the request path.
const given = process.argv.slice(2)
// `ban` anywhere among the arguments: the policy has a ban (checked and counted in the same store call).
const banned = given.includes('ban')
const args = given.filter((arg) => arg !== 'ban')
const [core, addresses, count] = args.length === 3 ? args : [args[0], '1', args[1]]
const { createRateLimitHandler } = await import(core)
const handler = createRateLimitHandler({
  limit: 1e9,
  window: '1m',
  ...(banned ? { ban: { after: 10, within: '1m', for: '1h' } } : {}),
})
const infos = Array.from({ length: Number(addresses) }, (_, i) => ({
  ip: i === 0 ? '203.0.113.7' : `203.0.${i >> 8}.${i & 255}`,
  method: 'GET',
  route: '/',
  path: '/',
  headers: {},
  native: {},
}))
let allowed = 0
async function run(n) {
  for (let i = 0; i < n; i++) {
    let outcome = handler.handle(infos[i % infos.length])
    if (outcome instanceof Promise) outcome = await outcome
    if (outcome.kind === 'pass') allowed++
  }
}
await run(30_000)
await run(Number(count))
if (allowed === 0) throw new Error('nothing was allowed')

// A loop of `n` decisions of core's HTTP handler (the path every adapter takes) on the MemoryStore, for
// CPU instruction counts with bench/lib/instructions.mjs:
//
//   node bench/suites/memory/handle-loop.mjs <path to a build of core's index.js> [addresses] [control...] <n>
//
// A control among the arguments adds it to the policy, to count what a check of it costs a decision that
// allows:
// - `ban`: `ban: { after: 10, within: '1m', for: '1h' }` (the store looks the key's ban up; nothing is counted);
// - `deny-list`: `denyList: ['198.51.100.0/24', '2001:db8:bad::/48']` (the client is not in it);
// - `deny`: `deny: () => false`, a function of the app's called on every request.
//
// The outcome is used in the same tick when it is not a promise, as the adapters do, else awaited; one
// client address (or `addresses` of them in round robin), the README's defaults but for a quota nobody
// reaches. Passing another build of core (a worktree of an earlier commit) gives the before and after of a
// change to the request path; the handler is taken from the build's internal entry when its index has none.
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const CONTROLS = {
  ban: { ban: { after: 10, within: '1m', for: '1h' } },
  'deny-list': { denyList: ['198.51.100.0/24', '2001:db8:bad::/48'] },
  deny: { deny: () => false },
}
const given = process.argv.slice(2)
const controls = given.filter((arg) => Object.hasOwn(CONTROLS, arg))
const args = given.filter((arg) => !Object.hasOwn(CONTROLS, arg))
const [core, addresses, count] = args.length === 3 ? args : [args[0], '1', args[1]]
const entry = pathToFileURL(resolve(core)).href
const createRateLimitHandler =
  (await import(entry)).createRateLimitHandler ??
  (await import(entry.replace(/index\.(m?js)$/, 'internal.$1'))).createRateLimitHandler
const handler = createRateLimitHandler({
  limit: 1e9,
  window: '1m',
  ...Object.assign({}, ...controls.map((control) => CONTROLS[control])),
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

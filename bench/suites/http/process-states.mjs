// Server CPU per request of several server processes measured in turn, each process reported on its own line:
// how far two processes of one configuration can differ, which the timed suite's medians hide.
//
//   node bench/suites/http/process-states.mjs '<json array of specs>' [cycles] [idle ms] [slice ms] [-- node flags]
//
// A spec is what bench/suites/http/server.mjs takes (framework, limiter, store, limit, metrics,
// floodgateOptions). All the servers start together, each is warmed up for 3 s in turn (50 keep-alive
// connections, one request in flight each, the suite's own client), then every cycle gives each server a slice
// of 500 ms (`slice ms`) after 150 ms for its new connections to settle, as bench/suites/http.mjs does, then
// waits `idle` ms. One spec, one cycle and a slice of 3000 ms measure one server alone under steady load. A
// line gives the server's CPU (`process.cpuUsage()`, user + system, all its threads) per response over its
// slices, and the system share. Node flags after `--` go to every server process (`--trace-gc`, or
// `--min-semi-space-size=16 --max-semi-space-size=16` to fix the young generation's size).
//
// Example: two Floodgate processes, two with prometheus() metrics and two of the peer, on Fastify:
//   F='"framework":"fastify","store":"memory","limit":1e9'
//   node bench/suites/http/process-states.mjs "[{$F,\"limiter\":\"floodgate\"},{$F,\"limiter\":\"floodgate\",\"metrics\":\"prometheus\"},{$F,\"limiter\":\"peer\"},{$F,\"limiter\":\"floodgate\"},{$F,\"limiter\":\"floodgate\",\"metrics\":\"prometheus\"},{$F,\"limiter\":\"peer\"}]"
//
// Imports the built packages: build first (`npx turbo run build`).
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { startLoad } from './client.mjs'

const WARMUP_MS = 3_000
const SETTLE_MS = 150
const CONNECTIONS = 50

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** Start one server process for `spec`; resolves once it listens, with a way to ask its CPU time. */
async function startServer(spec, execArgv) {
  const script = fileURLToPath(new URL('server.mjs', import.meta.url))
  const child = fork(script, [JSON.stringify(spec)], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  let next = 0
  /** The process's CPU time so far, µs: `{ user, system }`. */
  const usage = () =>
    new Promise((resolve) => {
      const id = next++
      const onMessage = (message) => {
        if (message?.type !== 'cpu' || message.id !== id) return
        child.off('message', onMessage)
        resolve(message)
      }
      child.on('message', onMessage)
      child.send({ type: 'cpu', id })
    })
  const ready = await new Promise((resolve, reject) => {
    child.once('message', resolve)
    child.once('exit', (code) => reject(new Error(`server ${JSON.stringify(spec)} exited with ${code}`)))
  })
  return { spec, child, usage, port: ready.port, cpuUs: 0, systemUs: 0, responses: 0 }
}

/** Send load to `server` for one slice, adding its CPU time and responses to its totals. */
async function measureSlice(server, sliceMs) {
  const load = startLoad({ port: server.port, connections: CONNECTIONS })
  await sleep(SETTLE_MS)
  load.reset()
  const before = await server.usage()
  await sleep(sliceMs)
  const after = await server.usage()
  const { statuses } = load.snapshot()
  await load.stop()
  server.cpuUs += after.user + after.system - before.user - before.system
  server.systemUs += after.system - before.system
  server.responses += Object.values(statuses).reduce((sum, n) => sum + n, 0)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dashes = process.argv.indexOf('--')
  const args = dashes === -1 ? process.argv.slice(2) : process.argv.slice(2, dashes)
  const execArgv = dashes === -1 ? [] : process.argv.slice(dashes + 1)
  const [specsJson, cycles = '4', idleMs = '0', sliceMs = '500'] = args
  if (!specsJson)
    throw new Error(
      "usage: process-states.mjs '<json array of specs>' [cycles] [idle ms] [slice ms] [-- node flags]",
    )
  const servers = await Promise.all(JSON.parse(specsJson).map((spec) => startServer(spec, execArgv)))
  try {
    for (const server of servers) {
      const load = startLoad({ port: server.port, connections: CONNECTIONS })
      await sleep(WARMUP_MS)
      await load.stop()
    }
    for (let cycle = 0; cycle < Number(cycles); cycle++) {
      for (const server of servers) await measureSlice(server, Number(sliceMs))
      await sleep(Number(idleMs))
    }
    for (const [i, s] of servers.entries()) {
      const perRequest = (us) => (us / s.responses).toFixed(2)
      console.log(
        `${i} ${JSON.stringify(s.spec)}: ${perRequest(s.cpuUs)} µs CPU per request (system ${perRequest(s.systemUs)}), ${s.responses} responses`,
      )
    }
  } finally {
    for (const s of servers) s.child.kill()
  }
}

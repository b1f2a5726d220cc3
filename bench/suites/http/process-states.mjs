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
// slices, the system share, and how busy the server and the load generator (this process) were over them, in
// CPUs: a server below 1 waited on its client. Node flags after `--` go to every server process (`--trace-gc`,
// or `--min-semi-space-size=16 --max-semi-space-size=16` to fix the young generation's size).
//
// Example: two Floodgate processes, two with prometheus() metrics and two of the peer, on Fastify:
//   F='"framework":"fastify","store":"memory","limit":1e9'
//   node bench/suites/http/process-states.mjs "[{$F,\"limiter\":\"floodgate\"},{$F,\"limiter\":\"floodgate\",\"metrics\":\"prometheus\"},{$F,\"limiter\":\"peer\"},{$F,\"limiter\":\"floodgate\"},{$F,\"limiter\":\"floodgate\",\"metrics\":\"prometheus\"},{$F,\"limiter\":\"peer\"}]"
//
// Imports the built packages: build first (`npx turbo run build`).
import { fileURLToPath } from 'node:url'
import { settingsOf } from './config.mjs'
import { measureSlice, warmUp } from './measure-slice.mjs'
import { spawnServer } from './server-process.mjs'

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dashes = process.argv.indexOf('--')
  const args = dashes === -1 ? process.argv.slice(2) : process.argv.slice(2, dashes)
  const execArgv = dashes === -1 ? [] : process.argv.slice(dashes + 1)
  const [specsJson, cycles = '4', idleMs = '0', sliceMs = '500'] = args
  if (!specsJson)
    throw new Error(
      "usage: process-states.mjs '<json array of specs>' [cycles] [idle ms] [slice ms] [-- node flags]",
    )
  // The suite's settings (50 connections, 150 ms to settle), a warm-up of 3 s whatever the rate, and this slice.
  const settings = {
    ...settingsOf({}),
    warmupMs: 3_000,
    warmupMaxMs: 3_000,
    warmupRequests: 0,
    sliceMs: Number(sliceMs),
  }
  const specs = JSON.parse(specsJson)
  const servers = await Promise.all(specs.map((spec) => spawnServer(spec, { execArgv })))
  const totals = specs.map(() => ({ cpuUs: 0, systemUs: 0, responses: 0, elapsedMs: 0, loadCpuUs: 0 }))
  try {
    for (const server of servers) await warmUp(server, settings)
    for (let cycle = 0; cycle < Number(cycles); cycle++) {
      for (const [i, server] of servers.entries()) {
        const slice = await measureSlice(server, settings)
        const total = totals[i]
        total.cpuUs += slice.cpuUsPerRequest * slice.responses
        total.systemUs += slice.systemUsPerRequest * slice.responses
        total.responses += slice.responses
        total.elapsedMs += slice.elapsedMs
        total.loadCpuUs += slice.loadCpuUs
      }
      await sleep(Number(idleMs))
    }
    for (const [i, total] of totals.entries()) {
      const perRequest = (us) => (us / total.responses).toFixed(2)
      const cpus = (us) => (us / 1000 / total.elapsedMs).toFixed(2)
      console.log(
        `${i} ${JSON.stringify(specs[i])}: ${perRequest(total.cpuUs)} µs CPU per request (system ${perRequest(total.systemUs)}), ${total.responses} responses; the server at ${cpus(total.cpuUs)} CPUs, the load generator at ${cpus(total.loadCpuUs)}`,
      )
    }
  } finally {
    await Promise.all(servers.map((server) => server.stop()))
  }
}

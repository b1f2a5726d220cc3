#!/usr/bin/env node
// @bench-title Overload: priority queue and load shedder
//
// A server of known capacity driven at 3x that capacity, 20% premium (critical) and 80% standard traffic:
// bare, behind Floodgate's priorityQueue, behind its loadShedder, side by side in one run, and the same bare
// server unloaded for the reference latency. Premium success rate and p99, standard success rate, server
// memory. Servers in their own processes; load only to 127.0.0.1.
//
//   node bench/suites/overload.mjs            ~1.5 minutes
//   node bench/suites/overload.mjs --quick    a smoke run (~20 s; numbers not representative)
//   node bench/suites/overload.mjs --render   only rewrite bench/results/overload.md from overload.json
import { parseArgs } from '../lib/child.mjs'
import { commandLine, machine } from '../lib/env.mjs'
import { readResults, writeResults } from '../lib/results.mjs'
import { drive } from './overload/load.mjs'
import { render } from './overload/render.mjs'
import { spawnServer } from './overload/spawn.mjs'
import { summarize } from './overload/summarize.mjs'

const args = parseArgs()
if (args.render) {
  const stored = readResults('overload')?.json
  if (!stored) throw new Error('no bench/results/overload.json to render')
  writeResults('overload', render(stored), stored)
  process.exit(0)
}

const quick = Boolean(args.quick)
const workers = 40
const serviceMs = 400
const capacity = (workers * 1000) / serviceMs
const settings = {
  workers,
  serviceMs,
  capacity,
  premiumShare: 0.2,
  timeoutMs: 5000,
  durationMs: quick ? 3000 : 15_000,
  warmupMs: quick ? 500 : 1500,
  settleMs: quick ? 1000 : 3000,
}
const plan = [
  { name: 'unloaded', label: 'bare, unloaded (0.3x)', kind: 'bare', load: 0.3 },
  { name: 'bare', label: 'bare', kind: 'bare', load: 3 },
  { name: 'queue', label: 'priorityQueue', kind: 'queue', load: 3 },
  { name: 'shedder', label: 'loadShedder', kind: 'shedder', load: 3 },
]

const meta = { ...machine(), command: commandLine(), quick }
const runs = []
for (const step of plan) {
  const rate = Math.round(capacity * step.load)
  console.error(`overload: ${step.label} at ${rate} req/s for ${settings.durationMs / 1000} s`)
  const server = await spawnServer({ kind: step.kind, workers, serviceMs })
  try {
    // Warm the JIT at a light load, then load at the row's rate; measure after it has settled.
    await drive({
      port: server.port,
      rate: Math.round(capacity * 0.3),
      durationMs: settings.warmupMs,
      seed: 1,
    })
    const settled = new Promise((resolve) => setTimeout(resolve, settings.settleMs)).then(() =>
      server.resetPeaks(),
    )
    const records = await drive({
      port: server.port,
      rate,
      durationMs: settings.settleMs + settings.durationMs,
      settleMs: settings.settleMs,
      premiumShare: settings.premiumShare,
      timeoutMs: settings.timeoutMs,
    })
    await settled
    const memory = await server.memory()
    delete memory.type
    delete memory.id
    runs.push({ ...step, rate, ...summarize(records, memory) })
  } finally {
    await server.stop()
  }
}
meta.loadavgEnd = machine().loadavg
const json = { meta, settings, runs }
const written = writeResults('overload', render(json), json)
console.error(`overload: wrote ${written.md}`)

// @bench-title Usage plans: what a plan decision costs
//
// A usage-plan decision checks two policies per API key (a token bucket and a calendar quota) where a plain
// limit checks one. This measures core's HTTP handler deciding requests (no HTTP server: `handle()` on a
// request description, the part every adapter shares), side by side in one run, interleaved:
//   - one policy: a token bucket per API key (`key` from the request);
//   - a plan: `plans` with rate, burst and a daily quota, `planOf` answered from its cache;
// on the MemoryStore and on a RedisStore (a redis-server this suite starts, so nothing else shares it),
// 1,000 API keys in round robin, every request allowed. The goal: a plan decision costs at most 1.2x a
// one-policy decision, on memory and on Redis (still one round trip: one script for both policies).
//
// With --instructions it also counts the CPU instructions of one decision with valgrind's callgrind (the
// same count whatever else the machine is doing): one policy, two plain policies, a plan on memory; one
// policy and a plan on Redis (the Node process's instructions).
//
//   node bench/suites/plans.mjs                  # ~1 minute
//   node bench/suites/plans.mjs --instructions   # and ~9 minutes under valgrind
//   node bench/suites/plans.mjs --quick          # a few seconds, numbers not representative
import { execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { MemoryStore, tokenBucket } from '@floodgate/core'
import { createRateLimitHandler } from '@floodgate/core/internal'
import { RedisStore } from '@floodgate/redis'
import { Redis } from 'ioredis'
import { machine } from '../lib/env.mjs'
import { hasValgrind, instructionsPerOperation } from '../lib/instructions.mjs'
import { writeResults } from '../lib/results.mjs'
import { runFor } from '../lib/timing.mjs'
import { API_KEYS, request } from './plans/requests.mjs'

const quick = process.argv.includes('--quick')
const ROUNDS = quick ? 1 : 5
const SLICE_MS = quick ? 200 : 1500
const BIG = 1e9
// Buckets hold 1e9 and refill 1 a minute (a plan's rate: 1/60 per second), so a key stays alive between
// visits as a window key does: refilled at 1e9 a second, a bucket would be full again a nanosecond after each
// hit, and its key, expired, would be forgotten and made anew on most visits. Every request is allowed: the
// cost of deciding, not of refusing.

function contenders(store) {
  const onePolicy = createRateLimitHandler({
    store,
    prefix: 'one',
    key: (req) => req.apiKey,
    algorithm: tokenBucket({ capacity: BIG, refillRate: 1, interval: '1m' }),
  })
  const plan = createRateLimitHandler({
    store,
    prefix: 'plan',
    plans: { free: { rate: 1 / 60, burst: BIG, quota: { limit: BIG, period: 'day' } } },
    apiKey: (req) => req.apiKey,
    planOf: () => 'free',
  })
  return {
    'one policy': async (key) => (await onePolicy.handle(request(key))).kind === 'pass',
    plan: async (key) => (await plan.handle(request(key))).kind === 'pass',
  }
}

async function startRedis() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fg-plans-'))
  const port = 20_000 + Math.floor(Math.random() * 20_000)
  const child = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
    {
      stdio: 'ignore',
    },
  )
  for (let i = 0; i < 50; i++) {
    try {
      execFileSync('redis-cli', ['-p', String(port), 'ping'], { stdio: 'ignore' })
      break
    } catch {
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  const stop = () => {
    child.kill('SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  }
  return { port, stop }
}

async function measure(label, store) {
  const calls = contenders(store)
  const names = Object.keys(calls)
  const perCpu = Object.fromEntries(names.map((n) => [n, []]))
  for (const name of names) await runFor(calls[name], API_KEYS, SLICE_MS / 3) // warm-up, creates the keys
  for (let round = 0; round < ROUNDS; round++) {
    for (const name of round % 2 ? [...names].reverse() : names) {
      const run = await runFor(calls[name], API_KEYS, SLICE_MS)
      if (run.admitted !== run.calls) throw new Error(`${label} ${name}: ${run.calls - run.admitted} refused`)
      perCpu[name].push(run.perCpuSecond)
    }
    process.stderr.write(`  ${label} round ${round + 1}/${ROUNDS}\n`)
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const one = median(perCpu['one policy'])
  const plan = median(perCpu.plan)
  // The cost is the median of each round's own ratio (the two ran back to back in it), so that a round in
  // which the machine was busier weighs on both sides of its ratio alike.
  const ratios = perCpu.plan.map((p, round) => perCpu['one policy'][round] / p)
  return { store: label, onePolicy: one, plan, cost: median(ratios), ratios, samples: perCpu }
}

const redis = await startRedis()
const client = new Redis({ port: redis.port, host: '127.0.0.1' })
let rows
let instructions
try {
  rows = [
    await measure('memory', new MemoryStore()),
    await measure('redis', new RedisStore({ client, prefix: 'bench' })),
  ]
  if (process.argv.includes('--instructions') && hasValgrind()) instructions = countInstructions(redis.port)
} finally {
  client.disconnect()
  redis.stop()
}

/**
 * Instructions per decision: on memory, one policy, two plain policies and a plan; on Redis (the Node
 * process's: what a decision costs the app, the script being the server's), one policy and a plan.
 */
function countInstructions(port) {
  const loop = new URL('./plans/decide-loop.mjs', import.meta.url).pathname
  const counts = { memory: {}, redis: {} }
  const runs = [
    ['memory', 'one', []],
    ['memory', 'two', []],
    ['memory', 'plan', []],
    ['redis', 'one', [`redis=${port}`]],
    ['redis', 'plan', [`redis=${port}`]],
  ]
  for (const [store, variant, extra] of runs) {
    counts[store][variant] = instructionsPerOperation(loop, [variant, ...extra], {
      small: 10_000,
      large: 30_000,
    })
    process.stderr.write(
      `  instructions per decision, ${store} ${variant}: ${Math.round(counts[store][variant])}\n`,
    )
  }
  return counts
}

const fmt = (n) => Math.round(n).toLocaleString('en-US')
const markdown = [
  '## Usage plans: what a plan decision costs',
  '',
  "Core's HTTP handler deciding requests in process (the part every adapter shares), 1,000 API keys in round",
  'robin, every request allowed, one call in flight; decisions per CPU-second, median of',
  `${ROUNDS} interleaved rounds. A plan checks two policies (a token bucket and a daily quota) per key; on`,
  'Redis both are one script (one round trip). The goal: a plan decision costs at most 1.2x a one-policy',
  'decision. "cost" = one-policy decisions/s divided by plan decisions/s in the same round, the median over',
  'the rounds (1.00x = the same cost); the range of the rounds beside it.',
  '',
  '| store | one policy (decisions/CPU-s) | plan (decisions/CPU-s) | cost of a plan | goal met |',
  '|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| ${r.store} | ${fmt(r.onePolicy)} | ${fmt(r.plan)} | ${r.cost.toFixed(2)}x (${Math.min(...r.ratios).toFixed(2)} to ${Math.max(...r.ratios).toFixed(2)}) | ${r.cost <= 1.2 ? 'yes' : 'no'} |`,
  ),
  '',
  ...(instructions
    ? [
        "CPU instructions per decision on memory (valgrind callgrind, steady state, the same count whatever the machine's",
        "load). On Redis the Node process's count depends on how the replies' timing falls (each reply wakes the event",
        'loop on its own: a run of 10,000 decisions has counted more than one of 30,000), so Redis is judged by',
        'decisions per CPU-second, above:',
        '',
        '| store | one policy | two plain policies | a plan (two policies and its lookup) | plan / one | goal met |',
        '|---|---|---|---|---|---|',
        ...['memory'].map((store) => {
          const c = instructions[store]
          const ratio = c.plan / c.one
          return `| ${store} | ${fmt(c.one)} | ${c.two === undefined ? '-' : fmt(c.two)} | ${fmt(c.plan)} | ${ratio.toFixed(2)}x | ${ratio <= 1.2 ? 'yes' : 'no'} |`
        }),
        '',
        'A plan checks two counters where a plain limit checks one. A plain policy builds its store key from the',
        "key function's answer on every request; a plan's caller (the key's hash) and its two store keys are kept",
        "with the key's cached plan, so a plan decision builds no key and looks up one map for its plan: what the",
        'second counter adds is its store decision and its part of the headers. On Redis both counters are one',
        'script, so the second costs the app a few more arguments and a longer reply.',
        '',
      ]
    : []),
  `Command: \`node bench/suites/plans.mjs${instructions ? ' --instructions' : ''}\`${quick ? ' --quick (a smoke run: not representative)' : ''}.`,
].join('\n')
const written = writeResults('plans', markdown, {
  meta: machine(),
  quick,
  rounds: ROUNDS,
  sliceMs: SLICE_MS,
  rows,
  instructions,
})
process.stderr.write(`${markdown}\n\nwrote ${written.md}\n`)

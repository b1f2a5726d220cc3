// @bench-title Memory stores
// @bench-flags
//
// Floodgate's MemoryStore against the peers' in-memory stores, in one run:
//   - decisions per second on one hot key and on 100,000 keys round robin, and p50/p99 latency per decision;
//   - heap bytes per key after 1,000,000 distinct keys (every Floodgate algorithm, every peer);
//   - exactness: 2,000 calls at a limit of 1,000 issued in the same tick.
// Every measurement runs in a fresh child process (one store per process, so no store's JIT feedback, heap
// or timers bother another's); throughput rounds interleave the stores so that background load on the
// machine spreads over all of them. Writes bench/results/memory.md and bench/results/memory.json.
//
//   node bench/suites/memory.mjs            the full suite (about 2.5 minutes on 2 idle cores)
//   node bench/suites/memory.mjs --quick    a smoke run with tiny durations (numbers not representative)
//   node bench/suites/memory.mjs --render   only rewrite bench/results/memory.md from memory.json

import { fileURLToPath } from 'node:url'
import { parseArgs, runNode, sendResult } from '../lib/child.mjs'
import { contenders, keyOf } from '../lib/contenders.mjs'
import { buildOf, commandLine, machine } from '../lib/env.mjs'
import { fmtBytes, fmtCount, fmtNs, fmtRatio, fmtSpread, mdTable } from '../lib/format.mjs'
import { readResults, writeResults } from '../lib/results.mjs'
import { percentile, sorted, summarize } from '../lib/stats.mjs'
import { runFor, sampleLatency, touchAll } from '../lib/timing.mjs'

const SELF = fileURLToPath(import.meta.url)
const args = parseArgs()
const quick = Boolean(args.quick)

const CONFIG = {
  // 5 short rounds rather than 1 long one: on a shared machine the median of 5 interleaved rounds shrugs off
  // a burst of someone else's load that a single run would absorb.
  rounds: Number(args.rounds ?? (quick ? 1 : 5)),
  warmupMs: quick ? 50 : 150,
  measureMs: quick ? 100 : 300,
  latencySamples: quick ? 2_000 : 10_000,
  keys: quick ? 10_000 : 100_000,
  heapKeys: quick ? 100_000 : 1_000_000,
  /** Throughput: a quota nobody reaches, so every call is admitted and every store does the same work. */
  throughput: { limit: 1e9, windowMs: 60_000, refill: 1, maxKeys: 1_000_000 },
  /** Heap: an ordinary policy, 100 per hour (the sliding window log: 10 per hour); each key is hit once. */
  heap: { limit: 100, windowMs: 3_600_000, maxKeys: 1_000_000 },
  exact: { limit: 1_000, calls: 2_000, windowMs: 3_600_000 },
}
const HOT_KEY = '203.0.113.7'

/** Every store, each Floodgate algorithm included: heap bytes per key and exactness are measured for all. */
const ALL_STORES = [
  'map',
  'floodgate-swc',
  'floodgate-fw',
  'floodgate-swl',
  'floodgate-tb',
  'floodgate-lb',
  'floodgate-gcra',
  'rlf',
  'erl',
  'fastify',
  'koa',
]
/** Throughput leaves out the sliding log (O(limit) per key at a quota of 1e9) and the leaky bucket (the token bucket's math). */
const THROUGHPUT_STORES = ALL_STORES.filter((s) => s !== 'floodgate-swl' && s !== 'floodgate-lb')
/** The synchronous calls (no `await`), measured for throughput beside the awaited ones: the same state. */
THROUGHPUT_STORES.splice(1, 0, 'map-sync')
THROUGHPUT_STORES.splice(THROUGHPUT_STORES.indexOf('floodgate-swc') + 1, 0, 'floodgate-swc-sync')
const HEAP_STORES = ALL_STORES
const EXACT_STORES = ALL_STORES
/** The two throughput cases and their names in the results. */
const casesOf = (config) => ({ hot: 'one hot key', keys: `${fmtCount(config.keys)} keys round robin` })
const CASES = casesOf(CONFIG)

// ---------------------------------------------------------------------------------------------------------
// Child modes: one measurement each, result on stdout.

async function childThroughput(storeName, caseName) {
  const decide = await contenders[storeName].create(CONFIG.throughput)
  const keys = caseName === 'hot' ? [HOT_KEY] : Array.from({ length: CONFIG.keys }, (_, i) => keyOf(i))
  await touchAll(decide, keys) // every key exists before the clock starts
  const warm = await runFor(decide, keys, CONFIG.warmupMs)
  const run = await runFor(decide, keys, CONFIG.measureMs, warm.next)
  const latency = await sampleLatency(decide, keys, CONFIG.latencySamples, run.next)
  sendResult({
    perSecond: run.perSecond,
    perCpuSecond: run.perCpuSecond,
    calls: run.calls,
    admitted: run.admitted,
    elapsedNs: run.elapsedNs,
    keysHeld: decide.size(),
    latency: Array.from(latency, Math.round),
  })
}

async function childHeap(storeName) {
  const gc = globalThis.gc
  if (!gc) throw new Error('the heap measurement needs node --expose-gc')
  const contender = contenders[storeName]
  const config =
    contender.algorithm === 'slidingWindowLog' ? { ...CONFIG.heap, limit: 10 } : { ...CONFIG.heap }
  // Load the store's modules and let the JIT settle on a throwaway instance first, so neither code nor
  // module state lands in the delta.
  {
    const warm = await contender.create(config)
    for (let i = 0; i < 20_000; i++) await warm(`warm-${i}`)
  }
  const settle = async () => {
    for (let i = 0; i < 3; i++) {
      gc()
      await new Promise((resolve) => setImmediate(resolve))
    }
    return process.memoryUsage()
  }
  const before = await settle()
  const decide = await contender.create(config)
  let admitted = 0
  const start = process.hrtime.bigint()
  for (let i = 0; i < CONFIG.heapKeys; i++) if (await decide(keyOf(i))) admitted++
  const fillMs = Number(process.hrtime.bigint() - start) / 1e6
  const after = await settle()
  const keysHeld = decide.size()
  const heap = after.heapUsed - before.heapUsed
  const offHeap = after.arrayBuffers - before.arrayBuffers
  sendResult({
    keys: CONFIG.heapKeys,
    keysHeld,
    admitted,
    fillMs,
    limit: config.limit,
    windowMs: config.windowMs,
    heapDelta: heap,
    arrayBuffersDelta: offHeap,
    bytesPerKey: (heap + offHeap) / CONFIG.heapKeys,
    heapBytesPerKey: heap / CONFIG.heapKeys,
    offHeapBytesPerKey: offHeap / CONFIG.heapKeys,
    alive: typeof decide === 'function', // keeps `decide` (and its store) reachable until after the gc
  })
}

async function childExact() {
  const { limit, calls, windowMs } = CONFIG.exact
  const out = {}
  for (const name of EXACT_STORES) {
    const config = { limit, windowMs, maxKeys: 10_000 }
    const burst = await contenders[name].create(config)
    // All calls are made before any of them is awaited: the same tick.
    const sameTick = await Promise.all(Array.from({ length: calls }, () => burst('same-tick')))
    const sequential = await contenders[name].create(config)
    let seq = 0
    for (let i = 0; i < calls; i++) if (await sequential('sequential')) seq++
    out[name] = { sameTick: sameTick.filter(Boolean).length, sequential: seq }
  }
  sendResult(out)
}

// ---------------------------------------------------------------------------------------------------------
// Parent: run the children, assemble the tables.

const label = (name) => contenders[name].label
const isPeer = (name) => contenders[name].kind === 'peer'
const log = (line) => process.stderr.write(`[memory] ${line}\n`)

async function measureThroughput() {
  const results = {}
  for (const c of Object.keys(CASES)) {
    results[c] = {}
    for (const s of THROUGHPUT_STORES) results[c][s] = { rounds: [], cpuRounds: [], latency: [] }
  }
  for (let r = 0; r < CONFIG.rounds; r++) {
    // Rotate the order every round so that no store always runs first or last.
    const order = THROUGHPUT_STORES.map((_, i) => THROUGHPUT_STORES[(i + r * 2) % THROUGHPUT_STORES.length])
    for (const c of Object.keys(CASES)) {
      for (const s of order) {
        const res = await runNode(SELF, ['--child', 'throughput', '--store', s, '--case', c, ...passArgs()])
        if (res.admitted !== res.calls) log(`warning: ${s} refused ${res.calls - res.admitted} calls`)
        results[c][s].rounds.push(res.perSecond)
        results[c][s].cpuRounds.push(res.perCpuSecond)
        results[c][s].latency.push(...res.latency)
        results[c][s].keysHeld = res.keysHeld
        log(
          `round ${r + 1}/${CONFIG.rounds} ${c.padEnd(4)} ${s.padEnd(15)} ${fmtCount(res.perSecond)}/s, ` +
            `${fmtCount(res.perCpuSecond)}/CPU-s`,
        )
      }
    }
  }
  for (const c of Object.keys(CASES)) {
    for (const s of THROUGHPUT_STORES) {
      const cell = results[c][s]
      const lat = sorted(cell.latency)
      cell.perSecond = summarize(cell.rounds)
      cell.perCpuSecond = summarize(cell.cpuRounds)
      cell.p50 = percentile(lat, 50)
      cell.p99 = percentile(lat, 99)
      cell.samples = lat.length
      delete cell.latency
    }
  }
  return results
}

async function measureHeap() {
  const results = {}
  for (const s of HEAP_STORES) {
    results[s] = await runNode(SELF, ['--child', 'heap', '--store', s, ...passArgs()], {
      flags: ['--expose-gc'],
      timeoutMs: 180_000,
    })
    const r = results[s]
    log(
      `heap ${s.padEnd(15)} ${fmtBytes(r.bytesPerKey)} B/key (${fmtCount(r.keysHeld)} keys, ${Math.round(r.fillMs)} ms)`,
    )
  }
  return results
}

function passArgs() {
  return [...(quick ? ['--quick'] : []), ...(args.rounds ? ['--rounds', String(args.rounds)] : [])]
}

function fastestPeer(caseResults, metric = 'perSecond') {
  let best
  for (const [s, cell] of Object.entries(caseResults)) {
    if (isPeer(s) && (!best || cell[metric].median > caseResults[best][metric].median)) best = s
  }
  return best
}

/** The markdown section, from the results alone (their `meta.config` and `meta.quick`), so stored results render again. */
function render({ meta, throughput, heap, exact }) {
  const config = meta.config
  const cases = casesOf(config)
  const out = []
  const fastest = { hot: fastestPeer(throughput.hot), keys: fastestPeer(throughput.keys) }
  const smallestPeer = Object.keys(heap)
    .filter(isPeer)
    .sort((a, b) => heap[a].bytesPerKey - heap[b].bytesPerKey)[0]
  const ratio = (c, s) => throughput[c][s].perSecond.median / throughput[c][fastest[c]].perSecond.median
  const fastestCpu = {
    hot: fastestPeer(throughput.hot, 'perCpuSecond'),
    keys: fastestPeer(throughput.keys, 'perCpuSecond'),
  }
  const cpuRatio = (c, s) =>
    throughput[c][s].perCpuSecond.median / throughput[c][fastestCpu[c]].perCpuSecond.median
  const fg = 'floodgate-swc'
  const fgSync = 'floodgate-swc-sync'
  const hasSync = throughput.hot[fgSync] !== undefined

  out.push(`## Memory stores${meta.quick ? ' (QUICK SMOKE RUN: numbers not representative)' : ''}`)
  out.push('')
  out.push(
    `Measured ${meta.date} on Node ${meta.node} (V8 ${meta.v8}), ${meta.cpu} x ${meta.cores}, ` +
      `load average ${meta.loadavg.join(' / ')} at the start and ${meta.loadavgEnd.join(' / ')} at the end ` +
      `(1 / 5 / 15 min; other work was running on the machine). Suite: \`node bench/suites/memory.mjs\`` +
      `${meta.quick ? ' --quick' : ''} (${Math.round(meta.elapsedMs / 1000)} s).`,
  )
  out.push('')
  const b = meta.floodgate
  out.push(
    `Floodgate measured: ${b.package} ${b.version}, built ${b.builtAt} (\`${b.entry}\` sha256 ${b.sha256}) ` +
      `at commit ${b.commit}${b.sourcesModified ? ' with uncommitted changes to its sources' : ''}.` +
      `${meta.rebuiltDuringRun ? ' **WARNING: the package was rebuilt during the run; numbers mix two builds.**' : ''}`,
  )
  out.push('')
  out.push(
    "### Goals: Floodgate's default algorithm (slidingWindowCounter) at least 1.5x the fastest peer's " +
      'decisions per second, at most 100 bytes per key, exact within one tick',
  )
  out.push('')
  const exactFg = exact[fg].sameTick
  const goals = [
    ...['hot', 'keys'].map((c) => [
      `${c === 'hot' ? 'hot key' : cases.keys}: >= 1.5x the fastest peer`,
      `${fmtCount(throughput[c][fg].perSecond.median)}/s = ${fmtRatio(ratio(c, fg))} ${label(fastest[c])} ` +
        `(per CPU-second: ${fmtRatio(cpuRatio(c, fg))} ${label(fastestCpu[c])})`,
      ratio(c, fg) >= 1.5 ? 'met' : 'NOT met',
    ]),
    ...(hasSync ? ['hot', 'keys'] : []).map((c) => [
      `${c === 'hot' ? 'hot key' : cases.keys}, \`consumeSync\` (no await): >= 1.5x the fastest peer`,
      `${fmtCount(throughput[c][fgSync].perSecond.median)}/s = ${fmtRatio(ratio(c, fgSync))} ${label(fastest[c])} ` +
        `(per CPU-second: ${fmtRatio(cpuRatio(c, fgSync))} ${label(fastestCpu[c])})`,
      ratio(c, fgSync) >= 1.5 ? 'met' : 'NOT met',
    ]),
    [
      '<= 100 heap bytes per key',
      `${fmtBytes(heap[fg].bytesPerKey)} B/key`,
      heap[fg].bytesPerKey <= 100 ? 'met' : 'NOT met',
    ],
    [
      `exactly ${config.exact.limit} of ${config.exact.calls} same-tick calls admitted`,
      `${exactFg}`,
      exactFg === config.exact.limit ? 'met' : 'NOT met',
    ],
  ]
  out.push(mdTable(['goal', 'measured', ''], goals))
  out.push('')

  out.push('### Decisions per second')
  out.push('')
  out.push(
    `Calling pattern, the same for every store: one call in flight, \`await decide(key)\` in a loop, where ` +
      '`decide` is an `async` function that calls the store the way its own middleware does and returns ' +
      'admitted or not; the rows marked "no await" call a synchronous `decide` in the same loop without ' +
      "`await` (Floodgate's `consumeSync`, which no peer offers, and a bare Map for reference). " +
      `Quota ${fmtCount(config.throughput.limit)} per ${config.throughput.windowMs / 1000} s, ` +
      'so nothing is refused and every store does the same work (Floodgate buckets: capacity 1e9, refilled ' +
      '1 per minute, so a key stays alive between visits as a window key does). Each cell: ' +
      `${config.rounds} rounds of ${config.measureMs} ms after a ${config.warmupMs} ms warm-up (all keys ` +
      'created before the clock starts), every round in a fresh process, stores interleaved; the median ' +
      'round, ± half the range between the slowest and fastest round.',
  )
  out.push('')
  out.push(
    `**1.0x = the fastest peer in that column**: ${label(fastest.hot)} for the hot key ` +
      `(${fmtCount(throughput.hot[fastest.hot].perSecond.median)}/s), ${label(fastest.keys)} for ` +
      `${cases.keys} (${fmtCount(throughput.keys[fastest.keys].perSecond.median)}/s).`,
  )
  out.push('')
  const tpRows = THROUGHPUT_STORES.map((s) => [
    label(s),
    `${fmtCount(throughput.hot[s].perSecond.median)}/s`,
    fmtSpread(throughput.hot[s].perSecond.spread),
    fmtRatio(ratio('hot', s)),
    `${fmtCount(throughput.keys[s].perSecond.median)}/s`,
    fmtSpread(throughput.keys[s].perSecond.spread),
    fmtRatio(ratio('keys', s)),
  ])
  const r = (title) => ({ title, align: 'right' })
  out.push(
    mdTable(
      ['store', r('hot key'), r('±'), r('x fastest peer'), r(cases.keys), r('±'), r('x fastest peer')],
      tpRows,
    ),
  )
  out.push('')

  out.push('#### Per CPU-second')
  out.push('')
  out.push(
    'The same runs, counted per second of CPU time the process used (`process.cpuUsage()`, all its threads, ' +
      'GC threads included) instead of per second of wall time: other processes competing for the cores ' +
      'stretch wall time, hardly CPU time, so these ratios are steadier on a busy machine. ' +
      `**1.0x = the fastest peer in that column**: ${label(fastestCpu.hot)} (hot key), ` +
      `${label(fastestCpu.keys)} (${cases.keys}).`,
  )
  out.push('')
  out.push(
    mdTable(
      ['store', r('hot key'), r('±'), r('x fastest peer'), r(cases.keys), r('±'), r('x fastest peer')],
      THROUGHPUT_STORES.map((s) => [
        label(s),
        `${fmtCount(throughput.hot[s].perCpuSecond.median)}/CPU-s`,
        fmtSpread(throughput.hot[s].perCpuSecond.spread),
        fmtRatio(cpuRatio('hot', s)),
        `${fmtCount(throughput.keys[s].perCpuSecond.median)}/CPU-s`,
        fmtSpread(throughput.keys[s].perCpuSecond.spread),
        fmtRatio(cpuRatio('keys', s)),
      ]),
    ),
  )
  out.push('')

  out.push('### Latency per decision')
  out.push('')
  out.push(
    `process.hrtime.bigint() before each call and after its \`await\`, ${fmtCount(throughput.hot.map.samples)} ` +
      `samples per cell (${config.latencySamples} per round, right after the throughput run). The two timer ` +
      'reads are inside every sample; the bare Map row shows that floor.',
  )
  out.push('')
  out.push(
    mdTable(
      [
        'store',
        r('hot p50'),
        r('hot p99'),
        r(`${fmtCount(config.keys)} p50`),
        r(`${fmtCount(config.keys)} p99`),
      ],
      THROUGHPUT_STORES.map((s) => [
        label(s),
        fmtNs(throughput.hot[s].p50),
        fmtNs(throughput.hot[s].p99),
        fmtNs(throughput.keys[s].p50),
        fmtNs(throughput.keys[s].p99),
      ]),
    ),
  )
  out.push('')

  out.push(`### Heap bytes per key after ${fmtCount(config.heapKeys)} keys`)
  out.push('')
  out.push(
    `Each store in its own \`node --expose-gc\` process: modules loaded and JIT warmed on a throwaway ` +
      `instance, gc, then ${fmtCount(config.heapKeys)} distinct keys (\`10.a.b.c\`, the same strings for ` +
      'every store, created in the loop so each store pays for the strings it keeps) decided once each, gc; ' +
      '(Δ `heapUsed` + Δ `arrayBuffers`) / keys. `arrayBuffers` is off the V8 heap but is memory the store ' +
      "holds (Floodgate's typed arrays live there), so it is counted. Policy: 100 per hour (Floodgate's " +
      'sliding window log: 10 per hour). Floodgate `maxKeys` 1,000,000; fastify LocalStore cache 1,000,000.',
  )
  out.push('')
  out.push(
    `**1.0x = the smallest peer**: ${label(smallestPeer)} (${fmtBytes(heap[smallestPeer].bytesPerKey)} B/key).`,
  )
  out.push('')
  out.push(
    mdTable(
      ['store', r('bytes / key'), r('of which off-heap'), r('keys held'), r('x smallest peer')],
      HEAP_STORES.map((s) => [
        s === 'floodgate-swl' ? `${label(s)}, limit 10` : label(s),
        fmtBytes(heap[s].bytesPerKey),
        fmtBytes(heap[s].offHeapBytesPerKey),
        heap[s].keysHeld.toLocaleString('en-US'),
        fmtRatio(heap[s].bytesPerKey / heap[smallestPeer].bytesPerKey),
      ]),
    ),
  )
  out.push('')

  out.push('### Same-tick exactness')
  out.push('')
  out.push(
    `${config.exact.calls} calls on one key at a limit of ${config.exact.limit} per hour, all issued before ` +
      `any is awaited (\`Promise.all\`), on a fresh store; then ${config.exact.calls} calls awaited one ` +
      'by one on another fresh store, which every store should get right.',
  )
  out.push('')
  out.push(
    mdTable(
      ['store', r('admitted, same tick'), r('admitted, sequential'), 'exact?'],
      EXACT_STORES.map((s) => [
        label(s),
        exact[s].sameTick,
        exact[s].sequential,
        exact[s].sameTick === config.exact.limit && exact[s].sequential === config.exact.limit ? 'yes' : 'no',
      ]),
    ),
  )
  out.push('')
  out.push('How each store is called:')
  out.push('')
  for (const s of [...new Set([...THROUGHPUT_STORES, ...HEAP_STORES])]) {
    out.push(`- ${label(s)}: \`${contenders[s].how}\``)
  }
  return out.join('\n')
}

async function main() {
  const started = Date.now()
  const meta = { ...machine(), command: commandLine(), quick, config: CONFIG, floodgate: buildOf() }
  log(`throughput and latency: ${THROUGHPUT_STORES.length} stores x 2 cases x ${CONFIG.rounds} rounds`)
  const throughput = await measureThroughput()
  log(`heap bytes per key: ${HEAP_STORES.length} stores x ${fmtCount(CONFIG.heapKeys)} keys`)
  const heap = await measureHeap()
  log('same-tick exactness')
  const exact = await runNode(SELF, ['--child', 'exact', ...passArgs()])
  for (const [s, e] of Object.entries(exact))
    log(`exact ${s.padEnd(15)} same tick ${e.sameTick}, sequential ${e.sequential}`)
  meta.elapsedMs = Date.now() - started
  meta.loadavgEnd = machine().loadavg
  const buildAtEnd = buildOf()
  meta.rebuiltDuringRun = buildAtEnd.sha256 !== meta.floodgate.sha256
  if (meta.rebuiltDuringRun)
    log(`WARNING: ${buildAtEnd.entry} changed during the run; rerun on a stable build`)
  const data = { meta, throughput, heap, exact }
  const markdown = render(data)
  const files = writeResults('memory', markdown, data)
  log(`wrote ${files.md} and ${files.json} in ${Math.round(meta.elapsedMs / 1000)} s`)
}

/** --render: rewrite bench/results/memory.md from memory.json (after a change of wording; numbers as measured). */
function renderStored() {
  const stored = readResults('memory')
  if (!stored?.json) throw new Error('no bench/results/memory.json to render: run the suite first')
  const files = writeResults('memory', render(stored.json), stored.json)
  log(`wrote ${files.md} from ${files.json} (measured ${stored.json.meta.date})`)
}

if (args.render) renderStored()
else if (args.child === 'throughput') await childThroughput(args.store, args.case)
else if (args.child === 'heap') await childHeap(args.store)
else if (args.child === 'exact') await childExact()
else await main()

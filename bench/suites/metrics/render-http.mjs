/**
 * The metrics suite's section on instruction counts (`--instructions`, ./http-run.mjs): the goal over HTTP,
 * judged on what the metrics code itself costs (counted alone, to a few instructions) at this machine's rate,
 * with the counts per HTTP request beside it (whose spread from slice to slice is larger than that cost).
 */
import { fmtCount, mdTable, right } from '../../lib/format.mjs'
import { HTTP_FRAMEWORKS, HTTP_SINKS, HTTP_STORES } from './http-count.mjs'

const FRAMEWORK_LABELS = { express: 'Express 5', fastify: 'Fastify 5', koa: 'Koa 3' }
const STORE_LABELS = { memory: 'MemoryStore', redis: 'RedisStore' }
export const SINK_LABELS = {
  off: 'metrics off',
  prometheus: 'prometheus({ register })',
  opentelemetry: 'openTelemetry({ meter })',
  'opentelemetry-producer': 'openTelemetry({ meter, histograms: histogramProducer() })',
  baseline: 'core without the metrics hook',
}
const SHORT_LABELS = {
  prometheus: 'prometheus()',
  opentelemetry: 'openTelemetry()',
  'opentelemetry-producer': 'openTelemetry(), histogramProducer()',
}
const ON = HTTP_SINKS.filter((s) => s !== 'off')

const signedUs = (x) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(2)} µs` : 'n/a')
const signedCount = (x) =>
  Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${Math.round(x).toLocaleString('en-US')}` : 'n/a'
const count = (x) => Math.round(x).toLocaleString('en-US')

/**
 * What the metrics code adds to a request, in instructions: the recorder, and on a remote store the timed call.
 * Without V8's compiling (a TurboFan compilation of tens of thousands of instructions lands in one count or
 * another, long after the warm-up under valgrind); no collection runs while counting.
 */
export function componentExtra(components, store, sink) {
  const { decide, storeCall } = components
  const extra = (cells) => cells[sink].program - cells.off.program
  return store === 'memory' ? extra(decide['1']) : extra(decide.async) + extra(storeCall)
}

/** The rate of a framework's loop on `store` (its RedisStore loop's when that one was not measured). */
const rateOf = (http, framework, store) =>
  http.rates[`${framework}/${store}`] ?? http.rates[`${framework}/redis`]

/** Per framework, store and sink on: the extra instructions and µs. */
export function goalRows(http) {
  const rows = []
  for (const store of HTTP_STORES) {
    for (const framework of HTTP_FRAMEWORKS) {
      const rate = rateOf(http, framework, store)
      if (!rate) continue
      for (const sink of ON) {
        const extra = componentExtra(http.components, store, sink)
        rows.push({ framework, store, sink, extra, rate, extraUs: extra / rate.perUs })
      }
    }
  }
  return rows
}

/** The worst extra µs of any path, or NaN without counts. */
export function worstHttpExtra(http) {
  const rows = http ? goalRows(http) : []
  return rows.length === 0 ? Number.NaN : Math.max(...rows.map((r) => r.extraUs))
}

function componentTable({ components }) {
  const row = (label, cells) => [
    label,
    ...HTTP_SINKS.map((s) => `${count(cells[s].program)} (${count(cells[s].total)})`),
    ...ON.map((s) => signedCount(cells[s].program - cells.off.program)),
  ]
  const bytes = components.storeCall
  return mdTable(
    [
      'what',
      ...HTTP_SINKS.map((s) => right(SINK_LABELS[s])),
      ...ON.map((s) => right(`extra, ${SHORT_LABELS[s]}`)),
    ],
    [
      row("a decision on the MemoryStore (the limiter's recorder, called at once)", components.decide['1']),
      row(
        'a decision on a MemoryStore behind promises (the recorder in a `.then`, as on any remote store)',
        components.decide.async,
      ),
      row(
        `one store call timed for the store-duration histogram (${HTTP_SINKS.map((s) => bytes[s].bytes.toFixed(0)).join(' / ')} heap bytes)`,
        components.storeCall,
      ),
    ],
  )
}

function httpTable(http) {
  const rows = []
  for (const store of HTTP_STORES) {
    for (const framework of HTTP_FRAMEWORKS) {
      const off = http.counts[`${framework}/${store}/off`]
      for (const sink of HTTP_SINKS) {
        const c = http.counts[`${framework}/${store}/${sink}`]
        if (!c) continue
        const vsOff = (pick) => (off && sink !== 'off' ? signedCount(pick(c) - pick(off)) : '—')
        rows.push([
          FRAMEWORK_LABELS[framework],
          STORE_LABELS[store],
          SINK_LABELS[sink],
          count(c.total.mean),
          `${count(c.total.min)} – ${count(c.total.max)}`,
          vsOff((x) => x.total.mean),
          count(c.program.median),
          `${count(c.program.min)} – ${count(c.program.max)}`,
          vsOff((x) => x.program.median),
        ])
      }
    }
  }
  return mdTable(
    [
      'framework',
      'store',
      'metrics',
      right('instructions per request'),
      right('slices'),
      right('vs off'),
      right("without V8's runtime"),
      right('slices'),
      right('vs off'),
    ],
    rows,
  )
}

function rateTable(http) {
  return mdTable(
    [
      'framework',
      'store',
      right('instructions per request (off)'),
      right('CPU per request, uninstrumented'),
      right('runs'),
      right('instructions per µs'),
    ],
    Object.entries(http.rates).map(([key, rate]) => {
      const [framework, store] = key.split('/')
      return [
        FRAMEWORK_LABELS[framework],
        STORE_LABELS[store],
        count(rate.instructions),
        `${rate.cpuUs.toFixed(1)} µs`,
        `${rate.cpuMin.toFixed(1)} – ${rate.cpuMax.toFixed(1)} µs`,
        count(rate.perUs),
      ]
    }),
  )
}

/** The markdown of the section (its goal line comes first). */
export function renderHttp(http) {
  const title = '### Goal: metrics on cost at most 1 µs of server CPU per HTTP request'
  if (!http)
    return [
      title,
      '',
      'Not measured: run `node bench/suites/metrics.mjs --instructions` (valgrind; about an hour).',
    ]
  const { meta } = http
  const rows = goalRows(http)
  const over = rows.filter((r) => r.extraUs > 1)
  const label = (r) =>
    `${FRAMEWORK_LABELS[r.framework]}, ${STORE_LABELS[r.store]}, ${SINK_LABELS[r.sink]}: ${signedUs(r.extraUs)}`
  const verdict =
    over.length === 0
      ? 'met'
      : `NOT met on ${over.length} of ${rows.length} paths (${over.map(label).join('; ')})`
  const goal = mdTable(
    [
      'store',
      'metrics',
      right('extra instructions per request'),
      ...HTTP_FRAMEWORKS.map((f) => right(FRAMEWORK_LABELS[f])),
    ],
    HTTP_STORES.flatMap((store) =>
      ON.map((sink) => {
        const mine = rows.filter((r) => r.store === store && r.sink === sink)
        return [
          STORE_LABELS[store],
          SINK_LABELS[sink],
          signedCount(mine[0]?.extra),
          ...HTTP_FRAMEWORKS.map((f) => signedUs(mine.find((r) => r.framework === f)?.extraUs)),
        ]
      }),
    ),
  )
  const missing = HTTP_FRAMEWORKS.filter((f) => !http.rates[`${f}/redis`] && !http.rates[`${f}/memory`])
  const notCounted = missing.length
    ? ` Not counted in this run: ${missing.map((f) => FRAMEWORK_LABELS[f]).join(', ')} (\`--only\`), whose requests cost several times more instructions; the metrics code it runs is the same.`
    : ''
  const closest = rows.filter((r) => r.extraUs <= 1).sort((a, b) => b.extraUs - a.extraUs)[0]
  return [
    title,
    '',
    `Worst extra of any framework, store and sink: ${signedUs(worstHttpExtra(http))} per request: ${verdict}.` +
      (closest ? ` Closest to the line among the rest: ${label(closest)}.` : '') +
      notCounted,
    '',
    "CPU instructions counted by valgrind's callgrind (the same count on a busy machine), measured " +
      `${meta.date.slice(0, 10)}, turned into µs at the rate of each framework's own HTTP loop on this machine ` +
      '(below). What metrics add to a request is the work of the metrics code, the same whatever the framework: ' +
      "the limiter's recorder (at once on the MemoryStore; in a `.then` on a remote store) and, on a RedisStore, " +
      "the timing of its one store call with the histogram's record. Each is counted alone, where nothing else " +
      "runs, metrics off against each sink. Instructions per call, without V8's compiling (with it, in brackets: a " +
      'TurboFan compilation still lands in one count or another long after the warm-up under valgrind); the young ' +
      'generation holds everything these counts allocate, so no collection runs while counting: the extra heap ' +
      'bytes are given instead.',
    '',
    componentTable(http),
    '',
    goal,
    '',
    '#### Instructions per HTTP request',
    '',
    'One server of the http suite and its client in one Node process (`bench/suites/http/request-loop.mjs`, one ' +
      `keep-alive connection, a quota nobody reaches): ${fmtCount(meta.config.warmup)} requests of warm-up (not ` +
      `counted), then ${fmtCount(meta.config.n)} counted in slices of ${fmtCount(meta.config.slice)}, with a young ` +
      'generation larger than they allocate (no collection while counting). The RedisStore rows talk to a ' +
      `redis-server of their own (Redis ${meta.redisVersion}), whose CPU is not counted: the Node process is the ` +
      'server CPU the goal speaks of; the client does the same on and off. "Without V8\'s runtime" leaves out ' +
      'compiling (TurboFan, synchronous under `--single-threaded`) and garbage collection, which land in one slice ' +
      'or another: the median slice. Even so the slices of one configuration spread by tens of thousands of instructions ' +
      '(deoptimizations and recompilations under valgrind go on long after the warm-up), more than the metrics ' +
      'cost, so these rows bound the cost (no row shows more than its spread) without resolving it; the counts ' +
      'above resolve it.',
    '',
    httpTable(http),
    '',
    `The rate: the same loop without valgrind, metrics off, ${meta.config.rateRuns} runs of ` +
      `${fmtCount(meta.config.rateN)} requests after ${fmtCount(meta.config.rateWarmup)} of warm-up, its CPU time ` +
      "(user + system: the kernel's share of the socket calls included, which callgrind does not count, so the " +
      'rate is low and the µs it gives high) per request, median of runs, against the count above.',
    '',
    rateTable(http),
  ]
}

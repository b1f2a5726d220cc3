/**
 * What metrics cost an HTTP request, in CPU instructions: one server of the http suite and its client in one
 * process (bench/suites/http/request-loop.mjs), counted by valgrind's callgrind (deterministic: the same count
 * on a busy machine), metrics off, through `prometheus()` and through `openTelemetry()`, for each framework, on
 * the MemoryStore and on a RedisStore (a redis-server of its own: its CPU is not the Node process's, which is
 * what callgrind counts). The client's instructions are the same on and off, so the difference is the server's.
 *
 * Each run marks the end of the warm-up and every `slice` requests after it (REQUEST_LOOP_MARKS); callgrind
 * dumps the count at each mark (`--dump-before=uv_os_getpriority`), so start-up, warm-up and shutdown are
 * left out and the slices show whether the count has settled. The same loop run without valgrind gives this
 * machine's instructions per µs of CPU (user + system), to turn instructions into µs.
 */
import { execFile } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { median } from '../../lib/stats.mjs'

/** The young generation of a counted process, in MB: more than the counted requests allocate. */
export const YOUNG_MB = 128
const LOOP = fileURLToPath(new URL('../http/request-loop.mjs', import.meta.url))

/** The spec of one server: request-loop.mjs passes it to the http suite's startServer(). */
export function loopSpec({ framework, store, sink, redis, prefix }) {
  return {
    framework,
    limiter: 'floodgate',
    store,
    limit: 1e9,
    ...(sink === 'off' ? {} : { metrics: sink }),
    ...(store === 'redis'
      ? { prefix, redisOptions: { host: redis.host, port: redis.port, enableAutoPipelining: true } }
      : {}),
  }
}

function run(command, args, env) {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      { env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024, timeout: 20 * 60_000 },
      (error, stdout, stderr) => {
        if (error)
          reject(new Error(`${command} ${args.at(-2)} failed: ${error.message}\n${stderr.slice(-2000)}`))
        else resolve(stdout)
      },
    )
  })
}

const loopEnv = ({ warmup, slice }) => ({
  REQUEST_LOOP_WARMUP: String(warmup),
  REQUEST_LOOP_MARKS: String(slice),
})

/** Statuses answered during the measured requests: all must be 200 (a quota nobody reaches). */
function checkStatuses(stdout, n) {
  const { statuses, cpuAtMarks } = JSON.parse(stdout.trim().split('\n').at(-1))
  const total = Object.values(statuses).reduce((a, b) => a + b, 0)
  if (statuses[200] !== total)
    throw new Error(`not every request was answered 200: ${JSON.stringify(statuses)}`)
  if (total < n) throw new Error(`only ${total} responses`)
  return cpuAtMarks
}

/**
 * Run `node <args>` under callgrind, instrumentation off until the program turns it on
 * (`callgrind_control -i on`), and split the dumps its marks (`os.getPriority()`) make: dump k + 1 is what ran
 * between mark k and mark k + 1 (dump 1: from instrumentation on to the first mark; the final file: shutdown).
 * Resolves with the program's stdout and `{ total, runtime, program }` of dumps 2 to `marks`.
 */
export async function callgrindMarks(args, { env, marks, keep, name }) {
  // No collection while counting (see ../http/marks.mjs): the young generation holds what the counted part allocates.
  // (Not --predictable-gc-schedule: it fixes the young generation at 4 MB.)
  const heap = [
    '--expose-gc',
    `--min-semi-space-size=${YOUNG_MB}`,
    `--max-semi-space-size=${YOUNG_MB}`,
    '--no-memory-reducer',
  ]
  const out = path.join(keep ?? os.tmpdir(), `fg-count-${name}-${process.pid}-${Date.now()}`)
  try {
    const stdout = await run(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${out}`,
        '--dump-before=uv_os_getpriority',
        '--instr-atstart=no',
        process.execPath,
        '--single-threaded',
        ...heap,
        ...args,
      ],
      env,
    )
    const dumps = []
    for (let k = 2; k <= marks; k++) dumps.push(splitDump(readFileSync(`${out}.${k}`, 'utf8')))
    return { stdout, dumps }
  } finally {
    if (!keep) for (let k = 0; k <= marks + 1; k++) rmSync(k === 0 ? out : `${out}.${k}`, { force: true })
  }
}

/**
 * Instructions per request in each slice of `slice` requests after `warmup` (uncounted), `n` requests in
 * all: `total`, and `program` (without V8's compiling and collecting garbage). `keep`: a directory to keep the
 * callgrind files in, for callgrind_annotate.
 */
export async function countSlices(spec, { warmup, n, slice, keep }) {
  const { stdout, dumps } = await callgrindMarks([LOOP, JSON.stringify(spec), String(n)], {
    env: { ...loopEnv({ warmup, slice }), REQUEST_LOOP_INSTRUMENT: '1' },
    marks: n / slice + 1,
    keep,
    name: `${spec.framework}-${spec.store}-${spec.metrics ?? 'off'}`,
  })
  checkStatuses(stdout, n)
  return dumps.map((d) => ({ total: d.total / slice, program: d.program / slice }))
}

/** CPU µs (user + system) per request in each slice, the same loop without valgrind. */
export async function cpuSlices(spec, { warmup, n, slice }) {
  const stdout = await run(
    process.execPath,
    [LOOP, JSON.stringify(spec), String(n)],
    loopEnv({ warmup, slice }),
  )
  const marks = checkStatuses(stdout, n)
  return marks.slice(1).map((at, i) => (at - marks[i]) / slice)
}

/** The mean over slices (every request counted once) and the median slice. */
export const sliceStats = (values) => ({
  mean: values.reduce((a, b) => a + b, 0) / values.length,
  median: median(values),
  min: Math.min(...values),
  max: Math.max(...values),
})

export const HTTP_FRAMEWORKS = ['express', 'fastify', 'koa']
export const HTTP_STORES = ['memory', 'redis']
export const HTTP_SINKS = ['off', 'prometheus', 'opentelemetry', 'opentelemetry-producer']

/**
 * Count every framework x store x sink but those `skip(key)` (`jobs` at once: each is one valgrind process),
 * the RedisStore's on `redis` ({ host, port }, a redis-server of the caller's). `onCount(key, result)` hears
 * each as it ends.
 */
export async function countAll({
  redis,
  warmup,
  n,
  slice,
  jobs = 2,
  skip = () => false,
  onCount = () => {},
}) {
  const tasks = []
  for (const store of HTTP_STORES) {
    for (const framework of HTTP_FRAMEWORKS) {
      for (const sink of HTTP_SINKS) {
        const key = `${framework}/${store}/${sink}`
        if (skip(key)) continue
        tasks.push({
          key,
          spec: loopSpec({ framework, store, sink, redis, prefix: `fg-bench-count:${key}:${Date.now()}` }),
        })
      }
    }
  }
  const results = {}
  let next = 0
  const worker = async () => {
    while (next < tasks.length) {
      const { key, spec } = tasks[next++]
      const slices = await countSlices(spec, { warmup, n, slice })
      results[key] = {
        slices,
        total: sliceStats(slices.map((s) => s.total)),
        program: sliceStats(slices.map((s) => s.program)),
      }
      onCount(key, results[key])
    }
  }
  await Promise.all(Array.from({ length: jobs }, worker))
  return results
}

/**
 * Where V8 enters what it does beside running the program, none within another: its foreground tasks (Node's
 * platform runs them; in a server they are the garbage collector's: scavenges, incremental marking,
 * mark-compact), compiling (TurboFan, lazy and baseline compilation: synchronous with `--single-threaded`), and
 * a collection an allocation cannot wait for (called from the allocation itself, not from a task).
 */
const TASKS = 'node::PerIsolatePlatformData::FlushForegroundTasksInternal()'
const COMPILE = /^v8::internal::Runtime_(Compile|InstallBaselineCode)/
const COLLECT = 'v8::internal::Heap::CollectGarbage('
const FROM_A_COLLECTOR = /Task::|Finalize|CollectAllGarbage|MemoryReducer/

/**
 * Split one callgrind dump: `total` instructions, `runtime` (V8 compiling and collecting garbage: the inclusive
 * cost of the calls into it) and `program` (the rest). Which slice a compilation or a full collection lands
 * in depends on everything before it, so `program` is what steadies from one slice to the next.
 */
export function splitDump(text) {
  const names = new Map()
  const nameOf = (ref) => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(ref)
    if (!m) return ref
    if (m[2] !== undefined) names.set(m[1], m[2])
    return names.get(m[1])
  }
  const total = Number(/^summary: (\d+)/m.exec(text)?.[1])
  let caller = ''
  let callee = ''
  let inCall = false
  let runtime = 0
  for (const line of text.split('\n')) {
    if (inCall) {
      inCall = false
      const entered =
        callee === TASKS ||
        COMPILE.test(callee) ||
        (callee.startsWith(COLLECT) && !FROM_A_COLLECTOR.test(caller))
      if (entered) runtime += Number(line.split(' ')[1] ?? 0)
      continue
    }
    if (line.startsWith('fn=')) caller = nameOf(line.slice(3))
    else if (line.startsWith('cfn=')) callee = nameOf(line.slice(4))
    else if (line.startsWith('calls=')) inCall = true
  }
  return { total, runtime, program: total - runtime }
}

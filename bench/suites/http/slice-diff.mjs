// Where the CPU instructions of one HTTP configuration go that another's do not: both run under valgrind's
// callgrind in the suite's request loop (request-loop.mjs: server and client in one process, 5,000 requests of
// warm-up with a full collection 4,000 before its end, then 8,000 counted in slices of 2,000, each slice dumped
// by a mark), the slices after the warm-up summed per function, and the two compared per request:
//
//   node bench/suites/http/slice-diff.mjs '<spec A json>' '<spec B json>' [rows]
//
// A spec is what request-loop.mjs takes (framework, limiter, store, limit, floodgateOptions). Garbage collection
// (V8's marking, sweeping, scavenging and evacuation) is summed apart, as that is where a larger live heap shows:
// every full collection marks the whole heap. JIT-compiled JavaScript has no symbols under valgrind (it shows as
// addresses): node writes where it put each function (`--perf-basic-prof`, a map in the system's temporary
// folder), and each address is named from that map (`JS <function> <file>:<line>`, whichever tier compiled it).
// FLOODGATE_EXPRESS=<path to an index.js> serves Express with another build of @floodgate/express (both specs).
//
// Takes about 3 minutes per spec; the two run one after the other.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { COUNTED_NODE_FLAGS, hasValgrind, runCounted } from '../../lib/instructions.mjs'

const COUNTED = 8_000
const SLICE = 2_000
/**
 * A full collection this many requests before the counted ones (request-loop.mjs's REQUEST_LOOP_COLLECT). With
 * 2,000, TurboFan was still recompiling what it threw away inside the counted requests (the peer's Fastify
 * request rose from 95,377 instructions to 121,166).
 */
const COLLECT = 4_000
/** V8's garbage collector, by the names of its functions. */
const GC =
  /v8::internal::(Mark|Sweep|Scaveng|Evacuat|Remembered|LiveObject|BodyDescriptor|MarkingBarrier|HeapObject::SizeFromMap|ConcurrentMarking|IncrementalMarking|Heap::|MinorMarkCompact|Page::)/

/** The perf maps node has written to the temporary folder (`perf-<pid>.map`). */
const perfMaps = () => new Set(readdirSync(os.tmpdir()).filter((f) => /^perf-\d+\.map$/.test(f)))

/**
 * A namer of JIT code addresses from the perf maps in `files` (lines `<start hex> <size hex> <name>`): the
 * function an address falls in, its tier marker (`*`, `^`, `~`) dropped, or undefined.
 */
function jitNamer(files) {
  const ranges = []
  for (const file of files) {
    for (const line of readFileSync(path.join(os.tmpdir(), file), 'utf8').split('\n')) {
      const [start, size, ...name] = line.split(' ')
      if (name.length > 0)
        ranges.push([Number.parseInt(start, 16), Number.parseInt(size, 16), name.join(' ')])
    }
  }
  ranges.sort((x, y) => x[0] - y[0])
  return (address) => {
    let lo = 0
    let hi = ranges.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (ranges[mid][0] <= address) lo = mid + 1
      else hi = mid - 1
    }
    const range = ranges[hi]
    if (!range || address >= range[0] + range[1]) return undefined
    return `JS ${range[2].replace(/^JS:[*^~+]?/, '')}`
  }
}

/**
 * Instructions per counted request of each function, for `spec` (`PROGRAM TOTALS`: the whole request). Counted
 * after the warm-up, so start-up and the JIT's first compilations are not in it; the full collections that fall
 * in the counted requests are, spread over them.
 */
export function profile(spec) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'fg-slices-'))
  const script = fileURLToPath(new URL('request-loop.mjs', import.meta.url))
  const mapsBefore = perfMaps()
  let maps = []
  try {
    runCounted(
      [
        '--tool=callgrind',
        '--dump-before=uv_os_getpriority',
        `--callgrind-out-file=${path.join(dir, 'cg.out')}`,
        process.execPath,
        ...COUNTED_NODE_FLAGS,
        '--perf-basic-prof',
        '--expose-gc',
        script,
        JSON.stringify(spec),
        String(COUNTED),
      ],
      { env: { ...process.env, REQUEST_LOOP_MARKS: String(SLICE), REQUEST_LOOP_COLLECT: String(COLLECT) } },
    )
    // Dump 1 is everything up to the end of the warm-up; the counted slices follow it.
    const slices = readdirSync(dir)
      .filter((f) => /^cg\.out\.\d+$/.test(f) && Number(f.split('.').pop()) >= 2)
      .slice(0, COUNTED / SLICE)
    if (slices.length !== COUNTED / SLICE)
      throw new Error(`expected ${COUNTED / SLICE} slices, got ${slices.length}`)
    maps = [...perfMaps()].filter((f) => !mapsBefore.has(f))
    const jitName = jitNamer(maps)
    const perFunction = new Map()
    for (const slice of slices) {
      const text = execFileSync('callgrind_annotate', ['--threshold=100', path.join(dir, slice)], {
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      })
      for (const line of text.split('\n')) {
        const m = /^\s*([\d,]+) \([^)]*\)\s+(.*)$/.exec(line)
        if (!m) continue
        const address = /^\?\?\?:0x([0-9a-f]+)/.exec(m[2])
        const name = (address && jitName(Number.parseInt(address[1], 16))) || m[2]
        perFunction.set(name, (perFunction.get(name) ?? 0) + Number(m[1].replaceAll(',', '')) / COUNTED)
      }
    }
    return perFunction
  } finally {
    rmSync(dir, { recursive: true, force: true })
    for (const map of maps) rmSync(path.join(os.tmpdir(), map), { force: true })
  }
}

const gcOf = (p) => [...p].filter(([name]) => GC.test(name)).reduce((sum, [, n]) => sum + n, 0)
const fmt = (n) => Math.round(n).toLocaleString('en')

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (!hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
  const [a, b, rows = '15'] = process.argv.slice(2)
  if (!a || !b) throw new Error("usage: slice-diff.mjs '<spec A json>' '<spec B json>' [rows]")
  const pa = profile(JSON.parse(a))
  const pb = profile(JSON.parse(b))
  const total = (p) => p.get('PROGRAM TOTALS') ?? 0
  console.log(`A ${a}: ${fmt(total(pa))} instructions per request, garbage collection ${fmt(gcOf(pa))}`)
  console.log(`B ${b}: ${fmt(total(pb))} instructions per request, garbage collection ${fmt(gcOf(pb))}`)
  console.log(`B - A: ${fmt(total(pb) - total(pa))}, of which garbage collection ${fmt(gcOf(pb) - gcOf(pa))}`)
  const names = new Set([...pa.keys(), ...pb.keys()])
  names.delete('PROGRAM TOTALS')
  const diffs = [...names]
    .filter((name) => !/^\S*(main|\(below main\)|node::|0x000000000001ab70|\.\/csu)/.test(name))
    .map((name) => [name, (pb.get(name) ?? 0) - (pa.get(name) ?? 0)])
    .sort((x, y) => y[1] - x[1])
  console.log(`\nfunctions (self), B - A per request:`)
  for (const [name, d] of diffs.slice(0, Number(rows)))
    console.log(`${fmt(d).padStart(9)}  ${name.slice(0, 160)}`)
}

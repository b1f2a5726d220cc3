import { fmtRatio, mdTable, right } from '../../lib/format.mjs'

const pct = (r) => (Number.isFinite(r) ? `${(r * 100).toFixed(r >= 0.999 || r < 0.01 ? 1 : 1)}%` : 'n/a')
const ms = (v) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'n/a')
const mb = (b) => (Number.isFinite(b) ? `${(b / 2 ** 20).toFixed(1)} MB` : 'n/a')

/** The overload suite's markdown, a pure function of its JSON (so `--render` rewrites it from a stored run). */
export function render(json) {
  const { settings, runs, meta } = json
  const unloaded = runs.find((r) => r.name === 'unloaded')
  const bare = runs.find((r) => r.name === 'bare')
  const base = unloaded.premium.p99Ms
  const rows = runs.map((r) => [
    r.label,
    `${r.rate}/s (${fmtRatio(r.rate / settings.capacity)})`,
    pct(r.premium.successRate),
    ms(r.premium.p50Ms),
    ms(r.premium.p99Ms),
    fmtRatio(r.premium.p99Ms / base),
    pct(r.standard.successRate),
    `${r.premium.refused429 + r.standard.refused429} / ${r.premium.refused503 + r.standard.refused503} / ${r.premium.gaveUp + r.standard.gaveUp}`,
    mb(r.memory.peakRss),
    fmtRatio(r.memory.peakRss / bare.memory.peakRss),
    String(r.memory.peakLine + (r.memory.peakQueued ?? 0)),
  ])
  const goal = (run) => {
    const ok = run.premium.successRate >= 0.99 && run.premium.p99Ms <= 2 * base
    return `${run.label}: premium ${pct(run.premium.successRate)} served (goal >= 99%), p99 ${fmtRatio(run.premium.p99Ms / base)} of unloaded (goal <= 2x): ${ok ? 'met' : 'not met'}`
  }
  return [
    '## Overload: priority queue and load shedder at 3x capacity',
    '',
    `An Express app of known capacity (${settings.workers} requests worked on at once, ${settings.serviceMs} ms each on average, drawn evenly from ±25%: ${settings.capacity} req/s), driven open loop from this process over 127.0.0.1 (${settings.premiumShare * 100}% premium, the rest standard; a client gives up after ${settings.timeoutMs} ms) for ${settings.durationMs / 1000} s per row after ${settings.settleMs / 1000} s at the same load to settle, each server in its own process, every row in the same run. p99 is over the premium requests answered 200; "vs unloaded" divides it by the unloaded row's; peak RSS is the server process's, sampled every 50 ms; "waiting" is the most requests held at once (in the app's own line, or in the priority queue).`,
    '',
    mdTable(
      [
        'server',
        right('offered'),
        right('premium 200'),
        right('premium p50'),
        right('premium p99'),
        right('p99 vs unloaded'),
        right('standard 200'),
        right('429 / 503 / gave up'),
        right('peak RSS'),
        right('RSS vs bare'),
        right('waiting (peak)'),
      ],
      rows,
    ),
    '',
    'Goals (premium or critical traffic served at >= 99% with p99 within 2x of an unloaded server, while standard traffic absorbs the overload):',
    '',
    ...runs.filter((r) => r.name !== 'unloaded' && r.name !== 'bare').map((r) => `- ${goal(r)}`),
    '',
    `Configuration: priorityQueue({ concurrency: ${settings.workers}, queues: { premium: { capacity: 500 }, standard: { capacity: 100 } }, maxWait: '1s' }); loadShedder({ classes: ['critical', 'normal'], maxInFlight: ${settings.workers}, reserve: { critical: 0.4 } }).`,
    '',
    `Measured ${meta.date.slice(0, 10)} on ${meta.cpu} (${meta.cores} cores), Node ${meta.node}, load average ${meta.loadavg.join(' ')} at the start; \`${meta.command}\`.`,
  ].join('\n')
}

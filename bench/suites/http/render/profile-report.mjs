/**
 * bench/results/http.profile.md: where Floodgate's servers spend their CPU (from `--profile`), per framework a
 * table of areas and, per profiled server, its top functions by self time. Pure.
 */
import { fmtCount, mdTable, right } from '../../../lib/format.mjs'
import { FRAMEWORKS } from '../apps.mjs'
import { FRAMEWORK_IDS } from '../config.mjs'

const pct = (x) => `${(x * 100).toFixed(1)}%`

function areasTable(mine) {
  const areas = [...new Set(mine.flatMap((x) => x.summary.areas.map((a) => a.area)))]
  return mdTable(
    ['area (inclusive / self)', ...mine.map((x) => right(x.label))],
    [
      ['req/s with the profiler on', ...mine.map((x) => fmtCount(x.res.perSecond))],
      ['CPU µs/request with the profiler on', ...mine.map((x) => x.res.cpuUsPerRequest.toFixed(1))],
      [
        "**Floodgate's own code** (self time in @floodgate/* frames), share and µs/request",
        ...mine.map((x) => {
          const share = x.summary.areas
            .filter((a) => a.area.startsWith('@floodgate/'))
            .reduce((sum, a) => sum + a.selfShare, 0)
          return x.id === 'bare' ? '' : `${pct(share)} = ${(share * x.res.cpuUsPerRequest).toFixed(1)} µs`
        }),
      ],
      [
        '**`writev`** (socket writes: on loopback the kernel TCP path runs inside it), share and µs/request',
        ...mine.map((x) => {
          const w = x.summary.selfAll?.find((f) => f.name === 'writev')?.share ?? 0
          return `${pct(w)} = ${(w * x.res.cpuUsPerRequest).toFixed(1)} µs`
        }),
      ],
      ...areas.map((area) => [
        area,
        ...mine.map((x) => {
          const a = x.summary.areas.find((y) => y.area === area)
          return a ? `${pct(a.inclusiveShare)} / ${pct(a.selfShare)}` : ''
        }),
      ]),
    ],
  )
}

function topSelfLines(x) {
  const lines = [
    `Top self time, ${x.label}:`,
    '',
    mdTable(
      ['function', 'area', right('self')],
      x.summary.self.slice(0, 15).map((s) => [s.name, s.area, pct(s.share)]),
    ),
    '',
  ]
  const fg = x.summary.self.filter((s) => s.area.startsWith('@floodgate/'))
  if (fg.length) {
    lines.push(
      `Floodgate functions among the top ${x.summary.self.length}: ${fg.map((s) => `${s.name} ${pct(s.share)}`).join('; ')}.`,
      '',
    )
  }
  return lines
}

export function renderProfileReport({ meta, runs }) {
  const s = meta.config
  const out = [
    '## HTTP servers: where the time goes (CPU profiles)',
    '',
    `Profiled ${meta.date}, Node ${meta.node}, load average ${meta.loadavg.join(' / ')} at the start and ` +
      `${meta.loadavgEnd.join(' / ')} at the end. \`${meta.command}\`: each server under the suite's load ` +
      `(${s.connections} connections), warmed up to ${fmtCount(s.warmupRequests)} requests, then ` +
      `profiled for ${s.profileMs} ms with V8's CPU profiler (the one \`node --cpu-prof\` uses, started and ` +
      'stopped through `node:inspector` in the server process so that start-up and warm-up stay out; 200 µs ' +
      'sampling). Shares are of ' +
      "the process's non-idle samples; inclusive = samples with a frame of that area anywhere on the stack " +
      '(an area can be inside another: Floodgate runs inside the framework). Floodgate frames are mapped to ' +
      'their TypeScript source through the dist source maps. The profiler slows the server; read shares, ' +
      'not req/s.',
    '',
  ]
  for (const framework of FRAMEWORK_IDS) {
    const mine = runs.filter((x) => x.framework === framework)
    out.push(`### ${FRAMEWORKS[framework].label}`, '', areasTable(mine), '')
    for (const x of mine.filter((y) => y.id !== 'bare')) out.push(...topSelfLines(x))
  }
  return out.join('\n')
}

/**
 * The thundering herd, measured: 1,000 clients, each its own `createFetch`, all refused at the same
 * instant by a fixed window (100 requests per 10 s, already spent), then retrying as the client does. The
 * server is Floodgate's own HTTP handler (`createRateLimitHandler`) behind a `fetch` that answers in
 * process; time is virtual and the randomness seeded, so every run gives the same numbers and the same
 * picture. Run by `scripts/herd-plot.mjs` (writes `docs/images/client-herd.svg`) and by the herd test.
 */
import { fixedWindow } from '@floodgate/core'
import { createRateLimitHandler } from '@floodgate/core/internal'
// The PRNG alone: @floodgate/testing's index brings vitest along, which this script does not run under.
import { seededRandom } from '../../testing/src/random.js'
import type { Jitter } from '../src/backoff.js'
import { createFetch } from '../src/fetch.js'

/** The scenario the docs describe. */
export const HERD = {
  clients: 1_000,
  limit: 100,
  windowMs: 10_000,
  /** The herd arrives 5 s into a window whose quota is spent: every one is told `Retry-After: 5`. */
  offsetMs: 5_000,
  /** High enough that every client gets through eventually, so the picture shows every wave. */
  maxAttempts: 10,
  binMs: 100,
  /** The picture shows the first minute after the refusal. */
  plotMs: 60_000,
  seed: 42,
} as const

export const KINDS: readonly Jitter[] = ['none', 'equal', 'full', 'decorrelated']

export interface HerdResult {
  readonly jitter: Jitter
  /** Retries per bin of {@link HERD.binMs}, from the refusal on. */
  readonly histogram: readonly number[]
  /** The most retries in one bin. */
  readonly peak: number
  /** `peak` as a share of the clients. */
  readonly peakShare: number
  readonly retries: number
  readonly succeeded: number
  /** When the last client got through, ms after the refusal. */
  readonly lastSuccessMs: number
}

/** Virtual time: `sleep` queues a timer; `run` fires them in time order (ties in the order they were set). */
function virtualTimers(start: number) {
  let now = start
  let sequence = 0
  const timers: { at: number; seq: number; fire: () => void }[] = []
  const settle = () => new Promise<void>((resolve) => setImmediate(resolve))
  return {
    now: () => now,
    sleep: (ms: number) =>
      new Promise<void>((fire) => {
        timers.push({ at: now + ms, seq: sequence++, fire })
      }),
    async run(pending: () => number) {
      await settle()
      while (timers.length > 0 || pending() > 0) {
        if (timers.length === 0) {
          await settle()
          continue
        }
        let next = 0
        for (let i = 1; i < timers.length; i++) {
          const t = timers[i]!
          const n = timers[next]!
          if (t.at < n.at || (t.at === n.at && t.seq < n.seq)) next = i
        }
        const timer = timers.splice(next, 1)[0]!
        now = timer.at
        timer.fire()
        await settle()
      }
    },
  }
}

/** One run of the scenario with one kind of jitter. */
export async function simulateHerd(jitter: Jitter): Promise<HerdResult> {
  const windowStart = Date.UTC(2026, 0, 1, 12)
  const refusedAt = windowStart + HERD.offsetMs
  const time = virtualTimers(refusedAt)
  const server = createRateLimitHandler({
    algorithm: fixedWindow({ limit: HERD.limit, window: HERD.windowMs }),
    key: 'global',
    clock: time.now,
  })
  const ask = () =>
    server.handle({ ip: undefined, method: 'GET', route: '/', path: '/', headers: {}, native: {} })
  // Earlier traffic has spent this window's quota.
  for (let i = 0; i < HERD.limit; i++) await ask()

  const retryTimes: number[] = []
  let successes = 0
  let lastSuccessMs = 0
  const serve = async (): Promise<Response> => {
    const at = time.now() - refusedAt
    if (at > 0) retryTimes.push(at)
    const outcome = await ask()
    if (outcome.kind === 'pass') {
      successes++
      lastSuccessMs = at
      return new Response('ok', { status: 200, headers: outcome.headers })
    }
    return new Response(outcome.body ?? '', { status: outcome.status, headers: outcome.headers })
  }

  const random = seededRandom(HERD.seed)
  let pending = 0
  for (let c = 0; c < HERD.clients; c++) {
    const client = createFetch({
      fetch: serve,
      jitter,
      maxAttempts: HERD.maxAttempts,
      random,
      now: time.now,
      sleep: time.sleep,
    })
    pending++
    client('http://api.test/').finally(() => pending--)
  }
  await time.run(() => pending)

  const histogram = new Array<number>(Math.ceil(HERD.plotMs / HERD.binMs)).fill(0)
  const bins = new Map<number, number>()
  for (const t of retryTimes) {
    const bin = Math.floor(t / HERD.binMs)
    bins.set(bin, (bins.get(bin) ?? 0) + 1)
    if (bin < histogram.length) histogram[bin]!++
  }
  const peak = Math.max(0, ...bins.values())
  return {
    jitter,
    histogram,
    peak,
    peakShare: peak / HERD.clients,
    retries: retryTimes.length,
    succeeded: successes,
    lastSuccessMs,
  }
}

export const simulateAll = async (): Promise<HerdResult[]> => {
  const results: HerdResult[] = []
  for (const kind of KINDS) results.push(await simulateHerd(kind))
  return results
}

const LABELS: Record<Jitter, string> = {
  none: "jitter: 'none' (exactly Retry-After)",
  equal: "jitter: 'equal'",
  full: "jitter: 'full' (the default)",
  decorrelated: "jitter: 'decorrelated'",
}

const thousands = (n: number) => String(n).replace(/\B(?=(\d{3})+$)/g, ',')
const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1))
const percent = (share: number) => `${(share * 100).toFixed(1)}%`

/** The markdown table of the results, as `docs/client.md` shows it. */
export function herdTable(results: readonly HerdResult[]): string {
  const rows = results.map(
    (r) =>
      `| \`'${r.jitter}'\` | ${r.peak} (${percent(r.peakShare)}) | ${r.retries} | ${r.succeeded} | ${(r.lastSuccessMs / 1000).toFixed(1)} s |`,
  )
  return [
    '| jitter | peak retries per 100 ms (share of the clients) | retries in all | clients through | last one through |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n')
}

/** The picture: one panel per kind, retries per 100 ms over the first minute, resets and the 5% line marked. */
export function renderHerdSvg(results: readonly HerdResult[]): string {
  const width = 900
  const left = 56
  const right = 16
  const plotWidth = width - left - right
  const panelHeight = 150
  const gap = 46
  const top = 40
  const height = top + results.length * (panelHeight + gap) + 10
  const bins = Math.ceil(HERD.plotMs / HERD.binMs)
  const x = (ms: number) => left + (ms / HERD.plotMs) * plotWidth
  const barWidth = plotWidth / bins
  const fivePercent = HERD.clients * 0.05
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif" font-size="12">`,
    `<title>The retries of ${thousands(HERD.clients)} clients refused at once, per ${HERD.binMs} ms, with each jitter</title>`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    `<text x="${left}" y="22" font-size="15" font-weight="600" fill="#1f2937">${thousands(HERD.clients)} clients refused at once by a window of ${HERD.limit} per ${HERD.windowMs / 1000} s: their retries per ${HERD.binMs} ms</text>`,
  ]
  results.forEach((r, i) => {
    const y0 = top + i * (panelHeight + gap) + 22
    const yMax = Math.max(r.peak, fivePercent) * 1.1
    const y = (n: number) => y0 + panelHeight - (n / yMax) * panelHeight
    const colour = r.jitter === 'none' ? '#dc2626' : r.jitter === 'full' ? '#059669' : '#2563eb'
    out.push(
      `<text x="${left}" y="${y0 - 8}" font-size="13" font-weight="600" fill="#111827">${LABELS[r.jitter]} · peak ${r.peak} retries in ${HERD.binMs} ms, ${percent(r.peakShare)} of the clients</text>`,
      `<rect x="${left}" y="${y0}" width="${plotWidth}" height="${panelHeight}" fill="#f9fafb" stroke="#d1d5db"/>`,
    )
    for (let reset = HERD.windowMs - HERD.offsetMs; reset < HERD.plotMs; reset += HERD.windowMs) {
      out.push(
        `<line x1="${fmt(x(reset))}" y1="${y0}" x2="${fmt(x(reset))}" y2="${y0 + panelHeight}" stroke="#9ca3af" stroke-dasharray="2 3"/>`,
      )
    }
    const path: string[] = []
    r.histogram.forEach((count, bin) => {
      if (count > 0)
        path.push(
          `M${fmt(left + bin * barWidth)} ${fmt(y(count))}V${y0 + panelHeight}h${fmt(barWidth)}V${fmt(y(count))}z`,
        )
    })
    out.push(`<path d="${path.join('')}" fill="${colour}"/>`)
    out.push(
      `<line x1="${left}" y1="${fmt(y(fivePercent))}" x2="${left + plotWidth}" y2="${fmt(y(fivePercent))}" stroke="#f59e0b" stroke-width="1.5" stroke-dasharray="6 4"/>`,
      `<text x="${left + plotWidth - 4}" y="${fmt(y(fivePercent) - 4)}" text-anchor="end" fill="#b45309">5% of the clients (${fivePercent})</text>`,
      `<text x="${left - 6}" y="${y0 + 4}" text-anchor="end" fill="#4b5563">${fmt(Math.round(yMax))}</text>`,
      `<text x="${left - 6}" y="${y0 + panelHeight}" text-anchor="end" fill="#4b5563">0</text>`,
    )
    for (let s = 0; s <= HERD.plotMs / 1000; s += 10) {
      out.push(
        `<text x="${fmt(x(s * 1000))}" y="${y0 + panelHeight + 15}" text-anchor="middle" fill="#4b5563">${s} s</text>`,
      )
    }
  })
  out.push(
    `<text x="${width - right}" y="${height - 4}" text-anchor="end" fill="#6b7280" font-size="11">dotted lines: the window resets; time since the refusal; generated by packages/client/scripts/herd-plot.mjs (seed ${HERD.seed})</text>`,
    '</svg>',
  )
  return `${out.join('\n')}\n`
}

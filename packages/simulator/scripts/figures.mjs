// The pictures in docs/algorithms.md, computed by the simulator from the real algorithms: no number in them
// is drawn by hand. `node packages/simulator/scripts/make-figures.mjs` writes them to docs/images/; a test
// fails when a checked-in picture differs from what this file renders.

import {
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import { boundaryBurst, burst, merge, renderChart, simulate, steady } from '@floodgate/simulator'

const seconds = (ms) => Array.from(ms, (t) => t / 1000)
/** The state is read at each tick's last millisecond: plot it there. */
const tickEnds = (timeline) => Array.from(timeline.start, (t) => (t + timeline.tickMs) / 1000)

/** Admitted and refused requests per tick, stacked: the lower panel of the bucket charts. */
function requestsPanel(timeline, max, notes) {
  const x = seconds(timeline.start)
  const bars = (label, y, style) => ({
    label,
    kind: 'bars',
    x,
    y,
    barWidth: (3 * timeline.tickMs) / 1000, // three ticks wide, so that a single request shows
    style,
  })
  return {
    title: `Requests, per ${timeline.tickMs} ms`,
    y: { label: 'requests', max },
    height: 150,
    stacked: true,
    series: [bars('admitted (200)', timeline.admitted, 0), bars('refused (429)', timeline.refused, 1)],
    notes,
  }
}

function boundaryBurstFigure() {
  const limit = 100
  const traffic = boundaryBurst({ limit, window: '1m' })
  const algorithms = [
    ['fixedWindow', fixedWindow({ limit, window: '1m' }), 'twice the limit in 2 s'],
    [
      'slidingWindowCounter',
      slidingWindowCounter({ limit, window: '1m' }),
      'it weighs the first burst at 59/60',
    ],
    ['slidingWindowLog', slidingWindowLog({ limit, window: '1m' }), 'exact'],
  ]
  return renderChart({
    id: 'boundary',
    title: 'The boundary burst, limit 100 a minute: 100 requests at 0:59, 100 at 1:01',
    subtitle:
      'Bars: admitted in each second. Line: admitted in the rolling minute up to then, as an exact log counts',
    x: {
      label: 'time (s)',
      min: 0,
      max: 130,
      marks: [
        { x: 60, label: '1:00 (window boundary)' },
        { x: 120, label: '2:00' },
      ],
    },
    panels: algorithms.map(([name, algorithm, why]) => {
      const { timeline, summary } = simulate({ algorithm, traffic, duration: '130s', tick: '1s' })
      const x = seconds(timeline.start)
      return {
        title: `${name}: ${summary.admitted} admitted, at most ${summary.maxInWindow.units} in a minute (${why})`,
        y: { label: 'requests', max: 220 },
        height: 110,
        rules: [{ y: limit, label: `limit ${limit}` }],
        series: [
          { label: 'admitted in that second', kind: 'bars', x, y: timeline.admitted, barWidth: 1, style: 2 },
          { label: 'admitted in the last 60 s', kind: 'step', x, y: timeline.inWindow, style: 0 },
        ],
      }
    }),
  })
}

function tokenBucketFigure() {
  const algorithm = tokenBucket({ capacity: 10, refillRate: 1, interval: '100ms' })
  const traffic = merge(
    burst({ at: '1s', count: 11 }),
    burst({ at: 1100, count: 1 }),
    burst({ at: 1150, count: 1 }),
    burst({ at: '2.5s', count: 6 }),
  )
  const sim = simulate({ algorithm, traffic, duration: '3.5s', tick: '10ms' })
  const t = sim.timeline
  const retry = sim.decisions.retryAfterMs
  return renderChart({
    id: 'token',
    title: 'Token bucket: capacity 10, refill 1 token / 100 ms',
    subtitle:
      'Idle for 1 s (full), a burst of 11 at 1.0 s, one request at 1.1 s and at 1.15 s, a burst of 6 at 2.5 s',
    x: { label: 'time (s)', min: 0, max: 3.5 },
    panels: [
      {
        title: 'Tokens in the bucket',
        y: { label: 'tokens', max: 12 },
        height: 200,
        rules: [{ y: 10, label: 'capacity 10' }],
        series: [{ label: 'tokens left', kind: 'line', x: [0, ...tickEnds(t)], y: [10, ...t.state.tokens] }],
        notes: [
          { x: 0.97, y: 2, text: '10 spent at once', anchor: 'end' },
          { x: 1.62, y: 3, text: 'refills 1 token / 100 ms' },
        ],
      },
      requestsPanel(t, 12, [
        { x: 1.04, y: 10.6, text: `11th: 429, retry after ${retry[10]} ms` },
        { x: 1.2, y: 3, text: `1.1 s: 200 · 1.15 s: 429, retry after ${retry[12]} ms` },
        { x: 2.54, y: 6.6, text: '6 of 10 tokens: all pass' },
      ]),
    ],
  })
}

function leakyBucketFigure() {
  const options = { capacity: 10, leakRate: 1, interval: '100ms' }
  const traffic = merge(
    burst({ at: '0.5s', count: 14 }),
    burst({ at: '2.5s', count: 6 }),
    steady({ rate: 4, start: '2.5s', end: '4s' }),
  )
  const run = (mode) =>
    simulate({ algorithm: leakyBucket({ ...options, mode }), traffic, duration: '4.5s', tick: '50ms' })
  const police = run('police')
  const shape = run('shape')
  const x = seconds(police.timeline.start)
  const bars = (label, y, style) => ({ label, kind: 'bars', x, y, barWidth: 0.05, style })
  const panel = (title, series, notes) => ({
    title,
    y: { label: 'requests', max: 15 },
    height: 120,
    series,
    notes,
  })
  return renderChart({
    id: 'leaky',
    title: 'Leaky bucket: size 10, leak 1 request / 100 ms, police vs shape',
    subtitle:
      'The same arrivals: a burst of 14 at 0.5 s; a burst of 6 at 2.5 s with 4 a second on top until 4 s',
    x: { label: 'time (s)', min: 0, max: 4.5 },
    panels: [
      panel('Arriving, per 50 ms', [bars('arriving', police.timeline.sent, 2)], []),
      panel(
        'police: passed on, per 50 ms (bursts go through as bursts)',
        [bars('passed on', police.timeline.released, 0)],
        [{ x: 0.58, y: 11.5, text: `${police.summary.admitted} passed, ${police.summary.refused} refused` }],
      ),
      panel(
        'shape: passed on, per 50 ms (each admitted request waits its delayMs)',
        [bars('passed on', shape.timeline.released, 0)],
        [
          {
            x: 0.58,
            y: 4,
            text: `1 every 100 ms, a flat line; ${shape.summary.refused} refused, longest wait ${shape.summary.maxDelayMs} ms`,
          },
        ],
      ),
    ],
  })
}

function gcraFigure() {
  const algorithm = gcra({ rate: 10, period: '1s', burst: 5 })
  const traffic = merge(burst({ at: '0.5s', count: 8 }), steady({ rate: 20, start: '1.5s', end: '3s' }))
  const sim = simulate({ algorithm, traffic, duration: '4s', tick: '10ms' })
  const t = sim.timeline
  return renderChart({
    id: 'gcra',
    title: 'GCRA: 10 a second, burst 5',
    subtitle:
      'One number per key, the theoretical arrival time (TAT). A burst of 8 at 0.5 s, then 20 a second from 1.5 s to 3 s',
    x: { label: 'time (s)', min: 0, max: 4 },
    panels: [
      {
        title: 'How far the theoretical arrival time (TAT) runs ahead of now',
        y: { label: 'TAT - now (ms)', max: 600 },
        height: 190,
        rules: [{ y: 500, label: 'tolerance: burst 5 x 100 ms' }],
        series: [{ label: 'TAT - now', kind: 'line', x: [0, ...tickEnds(t)], y: [0, ...t.state.ahead] }],
        notes: [
          { x: 0.56, y: 530, text: 'the burst spends the tolerance' },
          { x: 1.6, y: 578, text: 'rested at 1.5 s, then at the tolerance: 1 per 100 ms passes' },
        ],
      },
      requestsPanel(t, 9, [
        {
          x: 0.54,
          y: 8.2,
          text: `burst of 8: ${sim.decisions.allowed.slice(0, 8).reduce((a, b) => a + b, 0)} pass`,
        },
      ]),
    ],
  })
}

/** Every picture: its file name in docs/images/ and its SVG. */
export function figures() {
  return [
    { file: 'boundary-burst.svg', svg: boundaryBurstFigure() },
    { file: 'token-bucket.svg', svg: tokenBucketFigure() },
    { file: 'leaky-bucket.svg', svg: leakyBucketFigure() },
    { file: 'gcra.svg', svg: gcraFigure() },
  ]
}

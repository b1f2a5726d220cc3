import { type ChartPanel, compare, renderChart, type Simulation } from '@floodgate/simulator'
import { algorithmPicker } from './algorithms.js'
import { h } from './controls.js'
import { trafficForm } from './traffic-form.js'

/** About 150 ticks over the run, whole ms. */
const tickFor = (durationMs: number) => Math.max(1, Math.round(durationMs / 150))

function chartOf(sim: Simulation, name: string, id: string): string {
  const t = sim.timeline
  const x = Array.from(t.start, (ms) => ms / 1000)
  const ends = Array.from(t.start, (ms) => (ms + t.tickMs) / 1000)
  const { field, max } = sim.reader.gauge
  const unit = sim.reader.fields.find((f) => f.name === field)?.unit ?? ''
  const s = sim.summary
  const panels: ChartPanel[] = [
    {
      title: `Requests, per ${t.tickMs} ms`,
      y: { label: 'requests' },
      height: 120,
      stacked: true,
      series: [
        { label: 'admitted (200)', kind: 'bars', x, y: t.admitted, style: 0 },
        { label: 'refused (429)', kind: 'bars', x, y: t.refused, style: 1 },
      ],
    },
    {
      title: `State: ${field}`,
      y: { label: unit, max: Math.max(max, 1) * 1.15 },
      height: 110,
      rules: [{ y: max, label: `${max}` }],
      series: [{ label: field, kind: 'line', x: ends, y: t.state[field]!, style: 2 }],
    },
  ]
  return renderChart({
    id,
    title: name,
    subtitle: `${s.admitted} admitted, ${s.refused} refused; at most ${s.maxInWindow.units} in any ${s.maxInWindow.windowMs} ms`,
    width: 560,
    x: { label: 'time (s)', min: 0, max: sim.durationMs / 1000 },
    panels,
  })
}

/**
 * What the two runs decided, in words a newcomer reads without a legend: how many each admitted, then how many
 * requests they decided differently and which way.
 */
function verdictOf(
  a: Simulation,
  b: Simulation,
  { onlyFirst, onlySecond }: { onlyFirst: number; onlySecond: number },
): string {
  const differ = onlyFirst + onlySecond
  const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`
  if (differ === 0) {
    return a.summary.refused === 0
      ? 'A and B admitted every request.'
      : `A and B admitted the same ${requests(a.summary.admitted)} and refused the same ${a.summary.refused}.`
  }
  return (
    `A admitted ${a.summary.admitted}, B admitted ${b.summary.admitted}. They decided ${requests(differ)} differently: ` +
    `${requests(onlyFirst)} admitted by A and refused by B, ${requests(onlySecond)} admitted by B and refused by A.`
  )
}

/** Two algorithms, one traffic pattern: their charts side by side and where they disagree. */
export function sideBySidePanel(): HTMLElement {
  const charts = h('div', { class: 'charts', id: 'compare-charts' })
  const verdict = h('p', { class: 'headline', id: 'compare-verdict' })
  const run = () => {
    const first = a.build()
    const second = b.build()
    const durationMs = form.durationMs()
    const result = compare({
      algorithms: [first, second],
      traffic: form.traffic(),
      duration: durationMs,
      tick: tickFor(durationMs),
    })
    const [sa, sb] = result.simulations
    const names = [a.choice().name, b.choice().name]
    charts.innerHTML = `<figure>${chartOf(sa, `A: ${names[0]}`, 'a')}</figure><figure>${chartOf(sb, `B: ${names[1]}`, 'b')}</figure>`
    verdict.textContent = `${sa.summary.sent} requests (${sa.traffic}). ${verdictOf(sa, sb, result)}`
  }
  const a = algorithmPicker('a', 'fixed-window', run)
  const b = algorithmPicker('b', 'sliding-window-log', run)
  const form = trafficForm(run)
  run()
  return h(
    'section',
    { class: 'compare', id: 'compare' },
    h('h2', {}, 'Side by side'),
    h(
      'p',
      { class: 'lede' },
      'Two algorithms, the same requests, simulated on a virtual clock by the real algorithms.',
    ),
    h(
      'div',
      { class: 'compare-grid' },
      h('div', {}, h('h3', {}, 'A'), a.element),
      h('div', {}, h('h3', {}, 'B'), b.element),
      h('div', {}, h('h3', {}, 'Traffic'), form.element),
    ),
    verdict,
    charts,
  )
}

import { boundaryBurst, burst, onOff, poisson, steady, type Traffic } from '@floodgate/simulator'
import { type Choice, choiceForm, h, slider } from './controls.js'

const choices: readonly Choice<Traffic>[] = [
  {
    id: 'boundary-burst',
    name: 'Boundary burst',
    settings: [
      { name: 'count', label: 'requests in each burst', min: 1, max: 50, step: 1, value: 10, unit: '' },
      { name: 'window', label: 'boundary at', min: 100, max: 10_000, step: 100, value: 1000, unit: 'ms' },
      { name: 'offset', label: 'bursts this far from it', min: 1, max: 500, step: 1, value: 100, unit: 'ms' },
    ],
    create: (v) =>
      boundaryBurst({ limit: v.count!, window: v.window!, offset: Math.min(v.offset!, v.window!) }),
  },
  {
    id: 'burst',
    name: 'Burst at an instant',
    settings: [
      { name: 'count', label: 'requests', min: 1, max: 100, step: 1, value: 15, unit: '' },
      { name: 'at', label: 'at', min: 0, max: 5000, step: 100, value: 500, unit: 'ms' },
    ],
    create: (v) => burst({ at: v.at!, count: v.count! }),
  },
  {
    id: 'steady',
    name: 'Steady rate',
    settings: [{ name: 'rate', label: 'rate', min: 1, max: 100, step: 1, value: 15, unit: 'per second' }],
    create: (v) => steady({ rate: v.rate!, per: 1000 }),
  },
  {
    id: 'poisson',
    name: 'Poisson (random)',
    settings: [
      { name: 'rate', label: 'average rate', min: 1, max: 100, step: 1, value: 12, unit: 'per second' },
      { name: 'seed', label: 'seed', min: 1, max: 100, step: 1, value: 1, unit: '' },
    ],
    create: (v) => poisson({ rate: v.rate!, per: 1000, seed: v.seed! }),
  },
  {
    id: 'on-off',
    name: 'On / off',
    settings: [
      { name: 'rate', label: 'rate while on', min: 1, max: 100, step: 1, value: 30, unit: 'per second' },
      { name: 'on', label: 'on for', min: 100, max: 5000, step: 100, value: 500, unit: 'ms' },
      { name: 'off', label: 'off for', min: 100, max: 5000, step: 100, value: 1500, unit: 'ms' },
    ],
    create: (v) => onOff({ rate: v.rate!, per: 1000, on: v.on!, off: v.off! }),
  },
]

/** The traffic form: a pattern, its settings, and the duration of the run. */
export function trafficForm(onChange: () => void): {
  element: HTMLElement
  traffic(): Traffic
  durationMs(): number
} {
  let durationMs = 3000
  const pattern = choiceForm('traffic', 'pattern', choices, 'boundary-burst', onChange)
  const duration = slider(
    {
      name: 'duration',
      label: 'simulate for',
      min: 1000,
      max: 30_000,
      step: 500,
      value: durationMs,
      unit: 'ms',
    },
    (value) => {
      durationMs = value
      onChange()
    },
    'traffic-duration',
  )
  return {
    element: h('div', { class: 'traffic' }, pattern.element, duration),
    traffic: () => pattern.build(),
    durationMs: () => durationMs,
  }
}

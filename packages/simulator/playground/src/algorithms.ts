import {
  type Algorithm,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import { h, type SliderSpec, select, slider } from './controls.js'

/** One algorithm the page offers: its settings as sliders, and how to build it from them. */
export interface AlgorithmChoice {
  readonly id: string
  readonly name: string
  readonly settings: readonly SliderSpec[]
  create(values: Readonly<Record<string, number>>): Algorithm
}

const windowSettings: readonly SliderSpec[] = [
  { name: 'limit', label: 'limit', min: 1, max: 50, step: 1, value: 10, unit: 'requests' },
  { name: 'window', label: 'window', min: 100, max: 10_000, step: 100, value: 1000, unit: 'ms' },
]

export const choices: readonly AlgorithmChoice[] = [
  {
    id: 'token-bucket',
    name: 'Token bucket',
    settings: [
      { name: 'capacity', label: 'capacity', min: 1, max: 50, step: 1, value: 10, unit: 'tokens' },
      {
        name: 'refill',
        label: 'refill: 1 token every',
        min: 10,
        max: 2000,
        step: 10,
        value: 100,
        unit: 'ms',
      },
    ],
    create: (v) => tokenBucket({ capacity: v.capacity!, refillRate: 1, interval: v.refill! }),
  },
  {
    id: 'leaky-bucket-shape',
    name: 'Leaky bucket (shape)',
    settings: [
      { name: 'capacity', label: 'bucket size', min: 1, max: 50, step: 1, value: 10, unit: 'requests' },
      { name: 'leak', label: 'leak: 1 request every', min: 10, max: 2000, step: 10, value: 100, unit: 'ms' },
    ],
    create: (v) => leakyBucket({ capacity: v.capacity!, leakRate: 1, interval: v.leak!, mode: 'shape' }),
  },
  {
    id: 'leaky-bucket-police',
    name: 'Leaky bucket (police)',
    settings: [
      { name: 'capacity', label: 'bucket size', min: 1, max: 50, step: 1, value: 10, unit: 'requests' },
      { name: 'leak', label: 'leak: 1 request every', min: 10, max: 2000, step: 10, value: 100, unit: 'ms' },
    ],
    create: (v) => leakyBucket({ capacity: v.capacity!, leakRate: 1, interval: v.leak!, mode: 'police' }),
  },
  {
    id: 'gcra',
    name: 'GCRA',
    settings: [
      { name: 'rate', label: 'rate', min: 1, max: 50, step: 1, value: 10, unit: 'per second' },
      { name: 'burst', label: 'burst', min: 1, max: 50, step: 1, value: 5, unit: 'requests' },
    ],
    create: (v) => gcra({ rate: v.rate!, period: 1000, burst: v.burst! }),
  },
  {
    id: 'fixed-window',
    name: 'Fixed window',
    settings: windowSettings,
    create: (v) => fixedWindow({ limit: v.limit!, window: v.window! }),
  },
  {
    id: 'sliding-window-counter',
    name: 'Sliding window counter',
    settings: windowSettings,
    create: (v) => slidingWindowCounter({ limit: v.limit!, window: v.window! }),
  },
  {
    id: 'sliding-window-log',
    name: 'Sliding window log',
    settings: windowSettings,
    create: (v) => slidingWindowLog({ limit: v.limit!, window: v.window! }),
  },
]

/** The choice of `id` (the token bucket when unknown). */
export const choiceOf = (id: string): AlgorithmChoice => choices.find((c) => c.id === id) ?? choices[0]!

/** An algorithm picker on the page. */
export interface Picker {
  readonly element: HTMLElement
  /** The algorithm as the picker is set now. */
  algorithm(): Algorithm
  choice(): AlgorithmChoice
}

/**
 * An algorithm picker: a select of every algorithm and the chosen one's sliders. Calls `onChange` whenever
 * the choice or a setting changes; `algorithm()` builds the algorithm as set.
 */
export function algorithmPicker(prefix: string, initial: string, onChange: () => void): Picker {
  const settings = h('div', { class: 'settings' })
  let choice = choiceOf(initial)
  let values: Record<string, number> = {}
  const showSettings = () => {
    values = Object.fromEntries(choice.settings.map((s) => [s.name, s.value]))
    settings.replaceChildren(
      ...choice.settings.map((s) =>
        slider(
          s,
          (value) => {
            values[s.name] = value
            onChange()
          },
          `${prefix}-${s.name}`,
        ),
      ),
    )
  }
  const picker = select(
    `${prefix}-algorithm`,
    'algorithm',
    choices.map((c) => [c.id, c.name]),
    choice.id,
    (id) => {
      choice = choiceOf(id)
      showSettings()
      onChange()
    },
  )
  showSettings()
  return {
    element: h('div', { class: 'picker' }, picker, settings),
    algorithm: () => choice.create(values),
    choice: () => choice,
  }
}

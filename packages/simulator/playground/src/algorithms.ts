import {
  type Algorithm,
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import { type Choice, type ChoiceForm, choiceForm, type SliderSpec } from './controls.js'

/** One algorithm the page offers: its settings as sliders, and how to build it from them. */
export type AlgorithmChoice = Choice<Algorithm>

/** The leaky bucket in either mode: the same settings. */
const leaky = (mode: 'shape' | 'police'): AlgorithmChoice => ({
  id: `leaky-bucket-${mode}`,
  name: `Leaky bucket (${mode})`,
  settings: [
    { name: 'capacity', label: 'bucket size', min: 1, max: 50, step: 1, value: 10, unit: 'requests' },
    { name: 'leak', label: 'leak: 1 request every', min: 10, max: 2000, step: 10, value: 100, unit: 'ms' },
  ],
  create: (v) => leakyBucket({ capacity: v.capacity!, leakRate: 1, interval: v.leak!, mode }),
})

const windowSettings: readonly SliderSpec[] = [
  { name: 'limit', label: 'limit', min: 1, max: 50, step: 1, value: 10, unit: 'requests' },
  { name: 'window', label: 'window', min: 100, max: 10_000, step: 100, value: 1000, unit: 'ms' },
]

const choices: readonly AlgorithmChoice[] = [
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
  leaky('shape'),
  leaky('police'),
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

/** A select of every algorithm and the chosen one's sliders (`${prefix}-algorithm`, `${prefix}-capacity`, ...). */
export const algorithmPicker = (
  prefix: string,
  initial: string,
  onChange: () => void,
): ChoiceForm<Algorithm> => choiceForm(prefix, 'algorithm', choices, initial, onChange)

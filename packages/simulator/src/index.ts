export {
  type ChartNote,
  type ChartPanel,
  type ChartRule,
  type ChartSeries,
  type ChartSpec,
  renderChart,
} from './charts/chart.js'
export { luminance, palette, type SeriesStyle } from './charts/palette.js'
export { type CompareOptions, type Comparison, compare, type Judgement, judge } from './compare.js'
export { formatMs } from './format.js'
export { type Answer, type AnswerOptions, answerer } from './http-answer.js'
export { createSession, type Exchange, type Session } from './session.js'
export { type Decisions, type SimulateOptions, type Simulation, simulate } from './simulate.js'
export { type Gauge, readState, type StateReader, stateReader } from './state/inner-state.js'
export type { Summary, Timeline } from './timeline.js'
export * from './traffic/index.js'

/**
 * bench/results/http.md from the suite's results (the JSON it writes, so a stored http.json renders again
 * as it was measured): heading, goals, then one section per measure. Pure.
 */
import { configurationLines } from './configurations-list.mjs'
import { goalsLines } from './goals-table.mjs'
import { headingLines } from './heading.mjs'
import { pipelinedLines } from './pipelined-table.mjs'
import { redisCpuLines } from './redis-cpu-table.mjs'
import { refusalLines } from './refusal-table.mjs'
import { throughputLines } from './throughput-tables.mjs'

/** `profileReport`: whether bench/results/http.profile.md exists (the section then points to it). */
export function renderResults(data, { profileReport = false } = {}) {
  return [
    ...headingLines(data.meta),
    ...goalsLines(data),
    ...throughputLines(data),
    ...redisCpuLines(data),
    ...refusalLines(data),
    ...pipelinedLines(data),
    ...configurationLines(data, { profileReport }),
  ].join('\n')
}

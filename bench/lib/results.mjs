import fs from 'node:fs'
import path from 'node:path'
import { resultsDir } from './env.mjs'

/**
 * Write a suite's results: `bench/results/<name>.md` (a markdown section that bench/RESULTS.md embeds as is)
 * and `bench/results/<name>.json` (every number, with `meta` saying when, where and how they were measured).
 */
export function writeResults(name, markdown, json) {
  fs.mkdirSync(resultsDir, { recursive: true })
  const md = path.join(resultsDir, `${name}.md`)
  const js = path.join(resultsDir, `${name}.json`)
  fs.writeFileSync(md, `${markdown.trimEnd()}\n`)
  fs.writeFileSync(js, `${JSON.stringify(json, null, 2)}\n`)
  return { md, json: js }
}

/** A suite's stored results, or undefined when it has none. */
export function readResults(name) {
  const md = path.join(resultsDir, `${name}.md`)
  const js = path.join(resultsDir, `${name}.json`)
  if (!fs.existsSync(md)) return undefined
  let json
  try {
    json = JSON.parse(fs.readFileSync(js, 'utf8'))
  } catch {
    json = undefined
  }
  return { markdown: fs.readFileSync(md, 'utf8'), json }
}

import fs from 'node:fs'
import path from 'node:path'
import { suitesDir } from './env.mjs'

/**
 * The suites: every `bench/suites/<name>.mjs`. A suite may declare, in a comment among its first lines:
 *   // @bench-flags --expose-gc --max-old-space-size=2048   node flags run.mjs starts it with
 *   // @bench-title Memory stores                            the name of its section in RESULTS.md
 */
export function listSuites() {
  if (!fs.existsSync(suitesDir)) return []
  return fs
    .readdirSync(suitesDir)
    .filter((f) => f.endsWith('.mjs'))
    .sort()
    .map((f) => {
      const file = path.join(suitesDir, f)
      const head = fs.readFileSync(file, 'utf8').split('\n').slice(0, 30)
      const tag = (name) => {
        const line = head.find((l) => l.match(new RegExp(`^\\s*//\\s*@bench-${name}\\b`)))
        return line?.replace(new RegExp(`^\\s*//\\s*@bench-${name}\\s*:?\\s*`), '').trim()
      }
      const name = f.slice(0, -'.mjs'.length)
      return {
        name,
        file,
        flags: tag('flags')?.split(/\s+/).filter(Boolean) ?? [],
        title: tag('title') || name,
      }
    })
}

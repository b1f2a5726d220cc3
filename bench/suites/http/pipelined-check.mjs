/**
 * The pipelined exactness check: `count` GETs written at once on one connection to a fresh server whose
 * limit is `limit` per minute (memory stores); exactly `limit` should pass. Bare is tried once, as a check
 * of the client (all `count` should pass); each limiter `repeats` times, each try on a fresh server.
 */
import { FRAMEWORKS } from './apps.mjs'
import { pipelined } from './client.mjs'
import { FRAMEWORK_IDS } from './config.mjs'
import { log } from './log.mjs'
import { spawnServer } from './server-process.mjs'

const LABELS = { none: 'bare (no limiter)', floodgate: 'Floodgate, memory' }

export async function checkPipelined({ settings, runPrefix }) {
  const { count, limit, repeats } = settings.pipelined
  const rows = []
  for (const framework of FRAMEWORK_IDS) {
    for (const limiter of ['none', 'floodgate', 'peer']) {
      const tries = []
      for (let i = 0; i < (limiter === 'none' ? 1 : repeats); i++) {
        const server = await spawnServer({
          framework,
          limiter,
          store: 'memory',
          limit,
          prefix: `${runPrefix}:pipelined`,
          redisOptions: settings.redis,
        })
        const res = await pipelined({ port: server.port, count })
        await server.stop()
        const counts = {}
        for (const s of res.statuses) counts[s] = (counts[s] ?? 0) + 1
        tries.push({ counts, received: res.statuses.length, complete: res.complete, why: res.why })
        log(
          `pipelined ${framework.padEnd(7)} ${limiter.padEnd(9)} ${res.statuses.length}/${count} ` +
            `responses: ${Object.entries(counts)
              .map(([s, n]) => `${n} x ${s}`)
              .join(', ')} (${res.why})`,
        )
      }
      rows.push({ framework, limiter, label: LABELS[limiter] ?? FRAMEWORKS[framework].peerMemory, tries })
    }
  }
  return rows
}

/** How many of a try's responses were 200. */
export const passedOf = (t) => t.counts[200] ?? 0

/**
 * Whether every try of a row came out exact: with a limiter, all responses read and exactly `limit` passed;
 * bare, all `count` passed.
 */
export function isExact(row, { count, limit }) {
  return row.limiter === 'none'
    ? row.tries.every((t) => passedOf(t) === count)
    : row.tries.every((t) => passedOf(t) === limit && t.complete)
}

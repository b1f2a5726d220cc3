/** The pipelined exactness check: how many of the pipelined requests each server let through, every try. */
import { mdTable, right } from '../../../lib/format.mjs'
import { FRAMEWORKS } from '../apps.mjs'
import { isExact, passedOf } from '../pipelined-check.mjs'

function exactCell(row, pipelinedSettings) {
  const exact = isExact(row, pipelinedSettings)
  if (row.limiter === 'none') return exact ? `all ${pipelinedSettings.count} 200` : 'NO'
  return exact ? 'yes' : 'no'
}

export function pipelinedLines({ meta, pipelined }) {
  const settings = meta.config.pipelined
  const { count, limit, repeats } = settings
  const rows = pipelined.map((row) => {
    const list = (f) => row.tries.map(f).join(', ')
    return [
      FRAMEWORKS[row.framework].label,
      row.label,
      list(passedOf),
      list((t) => t.counts[429] ?? 0),
      list((t) => t.received - passedOf(t) - (t.counts[429] ?? 0)),
      list((t) => (t.complete ? 'yes' : `no (${t.why})`)),
      exactCell(row, settings),
    ]
  })
  return [
    `### ${count} pipelined requests on one connection`,
    '',
    `${count} \`GET /\` requests written in one \`socket.write\` on one fresh connection to a ` +
      `fresh server, limit ${limit} per minute per IP (memory stores), then the ` +
      `${count} responses' status lines read in order. Exactly ${limit} ` +
      `should be 200. Each limiter tried ${repeats} time(s), each try on a fresh server (bare once, ` +
      'as a check of the client); a cell lists every try.',
    '',
    mdTable(
      ['framework', 'limiter', right('200'), right('429'), right('other'), 'all responses read?', 'exact?'],
      rows,
    ),
    '',
  ]
}

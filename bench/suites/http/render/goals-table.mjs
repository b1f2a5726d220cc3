/** The goals, stated in the heading, and the table of what was measured against each. */
import { mdTable } from '../../../lib/format.mjs'
import { goalRows } from '../goals.mjs'

export const GOALS_HEADING =
  '### Goals: Floodgate at least 0.90x bare req/s on its memory store; on Redis, above the peer (Fastify: ' +
  'at least 0.80x bare) with no more Redis CPU per request; a refusal no slower than a pass; exactly the ' +
  'limit through a pipeline'

export function goalsLines(data) {
  return [GOALS_HEADING, '', mdTable(['goal', 'measured', ''], goalRows(data)), '']
}

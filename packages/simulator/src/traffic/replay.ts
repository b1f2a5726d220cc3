import { RateLimitConfigError } from '@floodgate/core'
import { COST_EXPECTED, isCost } from '../validate.js'
import { ArrivalsBuilder } from './builder.js'
import { type Arrivals, DEFAULT_KEY, type Traffic } from './types.js'

/** One recorded request: a timestamp in ms, or the timestamp with its key and cost. */
export type TraceRecord = number | { readonly at: number; readonly key?: string; readonly cost?: number }

/** Options of {@link replay}. */
export interface ReplayOptions {
  /**
   * The time that becomes 0 in the simulation: every timestamp is shifted by it. Aligned windows
   * (`fixedWindow`, `slidingWindowCounter`) start at multiples of their window from 0, so pass `0` to keep
   * epoch timestamps as they are (windows then align with the clock, as in production).
   * @default the earliest timestamp (the trace starts at 0)
   * @example 0
   */
  origin?: number
  /**
   * A label for legends and tables.
   * @default 'replay of N requests'
   */
  label?: string
}

interface Row {
  at: number
  key: string
  cost: number
}

function invalid(option: string, value: unknown, expected: string): never {
  throw new RateLimitConfigError('ERR_FLOODGATE_INVALID_OPTION', option, value, expected)
}

function rowOf(record: TraceRecord, i: number): Row {
  const where = `replay.records[${i}]`
  if (typeof record === 'number') {
    if (!Number.isFinite(record)) invalid(where, record, 'a finite timestamp in ms')
    return { at: record, key: DEFAULT_KEY, cost: 1 }
  }
  if (typeof record !== 'object' || record === null) {
    invalid(where, record, 'a timestamp in ms or { at, key?, cost? }')
  }
  const { at, key = DEFAULT_KEY, cost = 1 } = record
  if (typeof at !== 'number' || !Number.isFinite(at)) invalid(`${where}.at`, at, 'a finite timestamp in ms')
  if (typeof key !== 'string' || key.length === 0) invalid(`${where}.key`, key, 'a non-empty string')
  if (!isCost(cost)) invalid(`${where}.cost`, cost, COST_EXPECTED)
  return { at, key, cost }
}

/**
 * Replay a recorded trace: timestamps in ms, each optionally with its key and cost (see {@link parseTrace}
 * for a text file). The records need not be sorted; requests at the same time keep their order. Every record
 * is checked now: a bad one throws a `RateLimitConfigError` naming it.
 *
 * @example replay([{ at: 1719640800000, key: 'a' }, { at: 1719640800250, key: 'b' }])
 */
export function replay(records: readonly TraceRecord[], options: ReplayOptions = {}): Traffic {
  if (!Array.isArray(records))
    invalid('replay.records', records, 'an array of timestamps or { at, key?, cost? }')
  const rows = records.map(rowOf)
  rows.sort((a, b) => a.at - b.at) // stable: equal times keep their recorded order
  const origin = options.origin ?? rows[0]?.at ?? 0
  if (!Number.isFinite(origin)) invalid('replay.origin', origin, 'a finite time in ms')
  const first = rows[0]
  if (first && first.at < origin) {
    invalid(
      'replay.origin',
      origin,
      `at most the earliest timestamp (${first.at}), so that no request is before 0`,
    )
  }
  const built: Arrivals = (() => {
    const out = new ArrivalsBuilder(rows.length)
    for (const row of rows) out.push(row.at - origin, out.key(row.key), row.cost)
    return out.build()
  })()
  return {
    label: options.label ?? `replay of ${rows.length} requests`,
    arrivals(durationMs) {
      let n = built.at.length
      while (n > 0 && built.at[n - 1]! >= durationMs) n--
      if (n === built.at.length) return built
      return {
        at: built.at.subarray(0, n),
        keys: built.keys,
        keyIndex: built.keyIndex?.subarray(0, n),
        cost: built.cost?.subarray(0, n),
      }
    },
  }
}

/**
 * Read a trace from text: one request a line, `timestamp[,key[,cost]]` (commas or tabs), timestamps in ms.
 * Blank lines, `#` comments and a header line (`at,key,cost`) are skipped; any other unreadable line throws
 * a `RateLimitConfigError` naming the line.
 *
 * @example replay(parseTrace(fs.readFileSync('access-times.csv', 'utf8')), { origin: 0 })
 */
export function parseTrace(text: string): TraceRecord[] {
  const records: TraceRecord[] = []
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim()
    if (line === '' || line.startsWith('#')) continue
    const [atText = '', key, costText] = line.split(/[,\t]/).map((f) => f.trim())
    const at = Number(atText)
    if (atText === '' || !Number.isFinite(at)) {
      if (records.length === 0 && /^[a-z_ ]+$/i.test(atText)) continue // a header
      invalid(`trace line ${i + 1}`, line, 'a timestamp in ms, optionally followed by ,key and ,cost')
    }
    const cost = costText === undefined || costText === '' ? 1 : Number(costText)
    if (!isCost(cost)) invalid(`trace line ${i + 1}`, line, `a cost after the key that is ${COST_EXPECTED}`)
    records.push({ at, ...(key ? { key } : {}), cost })
  }
  return records
}

/** Number formatting and markdown tables for the results files. */

/** 7123456 -> '7.12M', 812345 -> '812k'. */
export function fmtCount(n) {
  if (!Number.isFinite(n)) return 'n/a'
  const abs = Math.abs(n)
  if (abs >= 1e9) return `${(n / 1e9).toFixed(2)}G`
  if (abs >= 1e6) return `${(n / 1e6).toFixed(2)}M`
  if (abs >= 1e4) return `${(n / 1e3).toFixed(0)}k`
  if (abs >= 1e3) return `${(n / 1e3).toFixed(1)}k`
  return `${Math.round(n)}`
}

/** A duration in ns, in the unit that reads best: '85 ns', '1.24 µs', '3.10 ms'. */
export function fmtNs(ns) {
  if (!Number.isFinite(ns)) return 'n/a'
  if (ns < 1e3) return `${Math.round(ns)} ns`
  if (ns < 1e6) return `${(ns / 1e3).toFixed(ns < 1e4 ? 2 : 1)} µs`
  return `${(ns / 1e6).toFixed(2)} ms`
}

/** A ratio: '1.53x'. */
export function fmtRatio(r) {
  if (!Number.isFinite(r)) return 'n/a'
  return `${r.toFixed(r >= 10 ? 1 : 2)}x`
}

/** Bytes, rounded to whole bytes: '217'. */
export function fmtBytes(b) {
  return Number.isFinite(b) ? `${Math.round(b)}` : 'n/a'
}

/** A relative spread as a percentage: '±4%'. */
export function fmtSpread(s) {
  return Number.isFinite(s) ? `±${Math.round((s * 100) / 2)}%` : 'n/a'
}

/**
 * A markdown table. `columns`: [{ title, align: 'left' | 'right' }] (or plain titles, left aligned);
 * `rows`: arrays of cells (strings or numbers).
 */
export function mdTable(columns, rows) {
  const cols = columns.map((c) => (typeof c === 'string' ? { title: c, align: 'left' } : c))
  const esc = (cell) => String(cell ?? '').replaceAll('|', '\\|')
  const line = (cells) => `| ${cells.map(esc).join(' | ')} |`
  const rule = `|${cols.map((c) => (c.align === 'right' ? '---:' : '---')).join('|')}|`
  return [line(cols.map((c) => c.title)), rule, ...rows.map(line)].join('\n')
}

/** A right-aligned column for mdTable(): `right('req/s')`. */
export const right = (title) => ({ title, align: 'right' })

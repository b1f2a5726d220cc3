// The thundering herd, measured (scripts/herd.ts): 1,000 clients refused at the same instant by a window
// limit, retrying through the real createFetch against Floodgate's own handler, on virtual time.
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { HERD, type HerdResult, herdTable, renderHerdSvg, simulateAll } from '../scripts/herd.js'

const docs = (path: string) =>
  readFileSync(fileURLToPath(new URL(`../../../docs/${path}`, import.meta.url)), 'utf8')

describe('the thundering herd', () => {
  let results: HerdResult[]
  const kind = (jitter: string) => results.find((r) => r.jitter === jitter)!

  beforeAll(async () => {
    results = await simulateAll()
  }, 60_000)

  it('without jitter, the retries land in one spike at each reset: every waiting client at once', () => {
    const none = kind('none')
    expect(none.peak).toBe(HERD.clients)
    // The first spike is the whole herd, on the first reset (5 s after the refusal).
    const firstReset = (HERD.windowMs - HERD.offsetMs) / HERD.binMs
    expect(none.histogram[firstReset]).toBe(HERD.clients)
    expect(none.histogram.filter((n) => n > 0).length).toBeLessThanOrEqual(
      Math.ceil(HERD.plotMs / HERD.windowMs),
    )
    // Only one window's worth gets through per reset: the rest give up after maxAttempts.
    expect(none.succeeded).toBeLessThan(HERD.clients)
  })

  it('with full jitter (the default), the peak per 100 ms is at most 5% of the clients, and every one gets through', () => {
    const full = kind('full')
    expect(full.peakShare).toBeLessThanOrEqual(0.05)
    expect(full.succeeded).toBe(HERD.clients)
    // Nobody comes back before the server said so.
    const firstReset = (HERD.windowMs - HERD.offsetMs) / HERD.binMs
    expect(full.histogram.slice(0, firstReset).every((n) => n === 0)).toBe(true)
  })

  it('decorrelated jitter spreads as well; equal jitter less (it waits at least half the ceiling)', () => {
    expect(kind('decorrelated').peakShare).toBeLessThanOrEqual(0.05)
    expect(kind('equal').peak).toBeGreaterThan(kind('full').peak)
    expect(kind('equal').peak).toBeLessThan(kind('none').peak / 10)
  })

  it('the checked-in picture is what the script draws now (regenerate: node packages/client/scripts/herd-plot.mjs)', () => {
    expect(docs('images/client-herd.svg')).toBe(renderHerdSvg(results))
  })

  it("docs/client.md shows the script's table", () => {
    expect(docs('client.md')).toContain(herdTable(results))
  })
})

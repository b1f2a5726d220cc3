import { type Fleet, type RedisCluster, requireSharedRedis, startRedisCluster } from '@floodgate/test-harness'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { overshootBound } from '../src/index.js'
import { forkRedisFixture } from './fixtures/fork-fixture.js'
import type { FleetOrder, FleetReport } from './fixtures/synced-fleet.js'
import { TEST_DB, testPrefix } from './helpers.js'

// Four separate Node processes (four "API servers"), each with its own SyncedStore on one shared Redis (then on
// a real 3-master Cluster), count one key at a limit of 100: a burst of 250 concurrent requests each, and a
// steady run over several windows. The admitted total of every window is checked against the stated bound,
// computed from what the run measured (its sync gaps and admission rate).
const PROCESSES = 4
const LIMIT = 100
const prefix = testPrefix('synced-fleet')
let fleet: Fleet
let url: string
let runs = 0

beforeAll(async () => {
  url = (await requireSharedRedis()).url
  fleet = await forkRedisFixture('synced-fleet', { size: PROCESSES })
}, 60_000)

afterAll(async () => {
  await fleet?.stop()
  const client = new Redis(url, { db: TEST_DB })
  const keys = await client.keys(`${prefix}*`)
  if (keys.length > 0) await client.del(...keys)
  await client.quit()
})

async function run(
  order: Omit<FleetOrder, 'key' | 'prefix' | 'limit' | 'timeoutMs'>,
): Promise<FleetReport[]> {
  const full: FleetOrder = { prefix, key: `k${++runs}`, limit: LIMIT, timeoutMs: 2000, ...order }
  await fleet.ask({ type: 'order', order: full })
  return (await fleet.ask<{ report: FleetReport }>({ type: 'fire' })).map((r) => r.report)
}

/** The most admissions in any span of `ms`, over every process. */
function mostIn(reports: FleetReport[], ms: number): number {
  const times = reports.flatMap((r) => r.admittedAt).sort((a, b) => a - b)
  let most = 0
  let from = 0
  for (let to = 0; to < times.length; to++) {
    while (times[to]! - times[from]! >= ms) from++
    most = Math.max(most, to - from + 1)
  }
  return most
}

/** The admitted total of each window, the bound the run's measurements give, and what they are. */
function measure(reports: FleetReport[], order: { exactWithin: number; syncEvery: number }) {
  const totals = new Map<number, number>()
  for (const report of reports) {
    for (const [window, n] of Object.entries(report.perWindow)) {
      totals.set(Number(window), (totals.get(Number(window)) ?? 0) + n)
    }
  }
  const gap = Math.max(order.syncEvery, ...reports.map((r) => r.stats.longestSyncGapMs))
  const rate = Math.max(mostIn(reports, 2 * gap) / (2 * gap), mostIn(reports, 3 * gap) / (3 * gap))
  const bound = overshootBound({ limit: LIMIT, exactWithin: order.exactWithin, rate, syncGapMs: gap })
  return { totals: [...totals.values()], bound, gap, rate }
}

function describeFleet(where: string, target: () => Pick<FleetOrder, 'url' | 'db' | 'nodes'>) {
  describe(`SyncedStore, ${PROCESSES} processes on ${where}`, () => {
    it(`${PROCESSES} x 250 concurrent requests at a limit of ${LIMIT}: within the bound`, async () => {
      const reports = await run({
        ...target(),
        windowMs: 3_600_000,
        syncEvery: 50,
        exactWithin: 0,
        scenario: { kind: 'burst', requests: 250 },
      })
      const admitted = reports.reduce((sum, r) => sum + r.admitted, 0)
      console.log(`${where}, burst: ${admitted} admitted of ${PROCESSES * 250} (limit ${LIMIT})`)
      expect(reports.map((r) => r.processes)).toEqual([4, 4, 4, 4])
      expect(reports.reduce((sum, r) => sum + r.unhandled, 0)).toBe(0)
      // Each process, its count of the fleet settled, admits at most its allowance, 1/4 of what the total it
      // read leaves: never more than the limit in all (exactly the limit when no process has synced another's
      // admissions before its own burst), each decided locally.
      console.log(`${where}, burst: ${reports.map((r) => r.admitted).join(' + ')} admitted`)
      expect(admitted).toBeLessThanOrEqual(LIMIT)
      expect(admitted).toBeGreaterThanOrEqual(LIMIT / 2)
      for (const r of reports) expect(r.admitted).toBeLessThanOrEqual(LIMIT / 4)
      expect(reports.every((r) => Object.keys(r.sources).join() === 'local')).toBe(true)
    }, 60_000)

    for (const exactWithin of [0, 0.5]) {
      it(`a steady run over several windows, exactWithin ${exactWithin}: every window within the measured bound`, async () => {
        const order = {
          ...target(),
          windowMs: 1000,
          syncEvery: 50,
          exactWithin,
          scenario: { kind: 'steady' as const, durationMs: 3500, tickMs: 20 },
        }
        const reports = await run(order)
        const { totals, bound, gap, rate } = measure(reports, order)
        const worst = Math.max(...totals)
        console.log(
          `${where}, steady, exactWithin ${exactWithin}: windows ${totals.join(', ')}; bound ${LIMIT} + ${bound.toFixed(1)} ` +
            `(longest sync gap ${gap.toFixed(0)} ms [${reports.map((r) => r.stats.longestSyncGapMs.toFixed(0)).join(' ')}], ${(rate * 1000).toFixed(0)} admissions/s at most); ` +
            `sources ${JSON.stringify(reports.map((r) => r.sources))}`,
        )
        expect(reports.reduce((sum, r) => sum + r.unhandled, 0)).toBe(0)
        expect(worst).toBeLessThanOrEqual(LIMIT + bound)
        // Demand is twice the limit: the full windows fill up to it (no process is starved of its share).
        expect(totals.filter((t) => t >= LIMIT * 0.9).length).toBeGreaterThanOrEqual(2)
        // Counted locally for the most part: one sync per 50 ms, not a round trip per request.
        const local = reports.reduce((sum, r) => sum + (r.sources.local ?? 0), 0)
        const all = reports.reduce((sum, r) => sum + r.decisions, 0)
        expect(local / all).toBeGreaterThan(exactWithin === 0 ? 0.9 : 0.5)
      }, 60_000)
    }
  })
}

describeFleet('one Redis', () => ({ url, db: TEST_DB }))

let cluster: RedisCluster
describe('on a Cluster', () => {
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 })
  }, 60_000)
  afterAll(async () => {
    await cluster?.stop()
  })
  describeFleet('a 3-master Redis Cluster', () => ({ nodes: cluster.nodes }))
})

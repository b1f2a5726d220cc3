import { fixedWindow } from '@floodgate/core'
import {
  bounded,
  type Fleet,
  freePort,
  type RedisCluster,
  type RedisServer,
  startRedis,
  startRedisCluster,
} from '@floodgate/test-harness'
import { Cluster, Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { keySlot, overshootBound, RedisStore, SyncedStore } from '../src/index.js'
import { forkRedisFixture } from './fixtures/fork-fixture.js'
import type { FleetOrder, FleetReport } from './fixtures/synced-fleet.js'
import { ledgerAlgorithm, ledgerKey } from './fixtures/synced-ledger.js'

// Faults, with four SyncedStore processes on a redis-server this file starts: killed (SIGKILL) mid-run and
// restarted on the same port; then one of the processes killed. Decisions go on locally and never wait on
// Redis, counts made while it is down reach it once it is back, and a dead process loses at most what it had
// not synced. The only clock reads are each decision's own latency and the moments of the kill and restart.
const PROCESSES = 4
const LIMIT = 100
const WINDOW_MS = 1000
const TIMEOUT_MS = 200
/** What a loaded CI machine may add to a bounded wait. */
const SLACK_MS = 500
const prefix = `fgtest:synced-failure:${process.pid}`

let server: RedisServer
let fleet: Fleet
let runs = 0

beforeAll(async () => {
  server = await startRedis()
  fleet = await forkRedisFixture('synced-fleet', { size: PROCESSES })
}, 60_000)

afterAll(async () => {
  await fleet?.stop()
  await server?.stop()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function order(durationMs: number): FleetOrder {
  return {
    url: server.url,
    prefix,
    key: `k${++runs}`,
    limit: LIMIT,
    windowMs: WINDOW_MS,
    syncEvery: 50,
    exactWithin: 0,
    timeoutMs: TIMEOUT_MS,
    scenario: { kind: 'steady', durationMs, tickMs: 20 },
  }
}

/** The admitted total of each window, over every process. */
function totals(reports: FleetReport[]): Map<number, number> {
  const out = new Map<number, number>()
  for (const report of reports) {
    for (const [window, n] of Object.entries(report.perWindow)) {
      out.set(Number(window), (out.get(Number(window)) ?? 0) + n)
    }
  }
  return out
}

/**
 * What an outage from `killedAt` (Redis has exited) to `restartedAt` (its restart begins: a window that ends
 * later may hold online decisions, bounded as a healthy fleet's) must leave: no unhandled rejection, every process deciding
 * offline and never waiting past the store's bound, and no window wholly inside the outage over the limit (each
 * process admits at most its share). Returns the admitted total of each window.
 */
function expectOutageWithin(
  done: FleetReport[],
  outage: { what: string; killedAt: number; restartedAt: number },
): Map<number, number> {
  const { killedAt, restartedAt } = outage
  const byWindow = totals(done)
  console.log(
    `${outage.what} for ${restartedAt - killedAt} ms: offline decisions ` +
      `${done.map((r) => r.sources.offline ?? 0).join(', ')}; windows ${[...byWindow.values()].join(', ')}; ` +
      `slowest decision ${Math.max(...done.map((r) => r.slowestMs)).toFixed(0)} ms`,
  )
  expect(done.reduce((sum, r) => sum + r.unhandled, 0)).toBe(0)
  for (const report of done) {
    expect(report.sources.offline ?? 0).toBeGreaterThan(20)
    expect(report.slowestMs).toBeLessThan(TIMEOUT_MS + SLACK_MS)
  }
  const inside = [...byWindow].filter(([start]) => start >= killedAt && start + WINDOW_MS <= restartedAt)
  expect(inside.length).toBeGreaterThanOrEqual(1)
  for (const [, total] of inside) expect(total).toBeLessThanOrEqual(LIMIT)
  return byWindow
}

/** The ledger count Redis holds for one process. */
async function ledgerInRedis(pid: number, run: string): Promise<number> {
  const client = new Redis(server.url)
  try {
    const store = new RedisStore({ client, prefix })
    const raw = await client.getBuffer(store.keyOf(ledgerAlgorithm, ledgerKey(pid, run)))
    return raw ? raw.readDoubleLE(8) : 0
  } finally {
    client.disconnect()
  }
}

describe('SyncedStore: Redis killed and restarted mid-run', () => {
  it('decides locally within its share, never waits, and sends the counts it kept once Redis is back', async () => {
    const run = order(6000)
    await fleet.ask({ type: 'order', order: run })
    const reports = fleet.ask<{ report: FleetReport }>({ type: 'fire' })
    await sleep(1500)
    await server.kill('SIGKILL')
    const killedAt = Date.now()
    fleet.tell({ type: 'ledger', on: true }) // from now on each process also counts its ledger key
    await sleep(2500)
    // Redis may answer the processes before restart() resolves: the outage ends when the restart begins.
    const restartedAt = Date.now()
    await server.restart()
    const done = (await reports).map((r) => r.report)

    const byWindow = expectOutageWithin(done, { what: 'killed', killedAt, restartedAt })
    // Windows wholly before the kill or after the restart: the bound of a healthy fleet, at most.
    const healthy = [...byWindow].filter(
      ([start]) => start + WINDOW_MS <= killedAt - 1000 || start >= restartedAt + 1000,
    )
    for (const [, total] of healthy)
      expect(total).toBeLessThanOrEqual(LIMIT + overshootBound({ limit: LIMIT }))
    // Every unit counted while Redis was down (and after) is in Redis now: exactly, or more by at most the units of
    // sync calls that failed and were sent again (a failed call may have run all the same: the total errs high).
    const now = await fleet.ask<{ stats: FleetReport['stats'] }>({ type: 'stats' })
    for (const [i, report] of done.entries()) {
      expect(report.ledger).toBeGreaterThan(0)
      const held = await ledgerInRedis(fleet.children[i]!.pid!, run.key)
      expect(held).toBeGreaterThanOrEqual(report.ledger)
      expect(held).toBeLessThanOrEqual(report.ledger + now[i]!.stats.unitsResent)
    }
  }, 60_000)
})

describe('SyncedStore on a Cluster: the master holding the key killed and restarted mid-run', () => {
  let cluster: RedisCluster
  beforeAll(async () => {
    cluster = await startRedisCluster({ masters: 3 })
  }, 60_000)
  afterAll(async () => {
    await cluster?.stop()
  })

  it('decides locally within its share, never waits long, and its counts reach the master once it is back', async () => {
    const run: FleetOrder = { ...order(6000), url: undefined, nodes: cluster.nodes }
    const client = new Cluster(cluster.nodes, { redisOptions: { maxRetriesPerRequest: 1 } })
    client.on('error', () => {})
    try {
      const keys = new RedisStore({ client, prefix })
      const slot = keySlot(keys.keyOf(fixedWindow({ limit: LIMIT, window: WINDOW_MS }), run.key))
      const ranges = await client.cluster('SLOTS')
      const port = ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1]
      const victim = cluster.servers.find((server) => server.port === port)!
      await fleet.ask({ type: 'order', order: run })
      const reports = fleet.ask<{ report: FleetReport }>({ type: 'fire' })
      await sleep(1500)
      await victim.kill('SIGKILL')
      const killedAt = Date.now()
      fleet.tell({ type: 'ledger', on: true })
      await sleep(2500)
      const restartedAt = Date.now() // as above: the outage ends when the restart begins
      await victim.restart()
      const done = (await reports).map((r) => r.report)
      expectOutageWithin(done, { what: 'Cluster, master of the key killed', killedAt, restartedAt })
      // Every ledger unit counted while the master was down, and after, reaches the Cluster: each
      // process sends what it kept at its next syncs once its client finds the restarted master (within 10 s).
      // Until the restarted master has rejoined, the Cluster answers CLUSTERDOWN: read again (at most 15 s).
      const inCluster = async (i: number): Promise<number | undefined> => {
        const rkey = keys.keyOf(ledgerAlgorithm, ledgerKey(fleet.children[i]!.pid!, run.key))
        try {
          const raw = await client.getBuffer(rkey)
          return raw ? raw.readDoubleLE(8) : 0
        } catch {
          return undefined
        }
      }
      for (const [i, report] of done.entries()) {
        expect(report.ledger).toBeGreaterThan(0)
        let held = await inCluster(i)
        for (let tries = 0; tries < 150 && !(held !== undefined && held >= report.ledger); tries++) {
          await sleep(100)
          held = await inCluster(i)
        }
        // Exactly, or more by at most the units of sync calls that failed and were sent again: a Cluster client
        // may hold a call while the master restarts and send it late, after this process gave up on it.
        expect(held).toBeGreaterThanOrEqual(report.ledger)
        const [now] = await fleet.ask<{ stats: FleetReport['stats'] }>({ type: 'stats' }, [
          fleet.children[i]!,
        ])
        expect(held).toBeLessThanOrEqual(report.ledger + now!.stats.unitsResent)
      }
    } finally {
      client.disconnect()
    }
  }, 120_000)
})

describe('SyncedStore: a process killed mid-run', () => {
  it('loses at most the counts of its last sync interval', async () => {
    const run = order(2500)
    await fleet.ask({ type: 'order', order: run })
    const [victim, ...survivors] = fleet.children
    const streamed: { ledger: number; at: number }[] = []
    victim!.on('message', (message: { stream?: boolean; ledger: number; at: number }) => {
      if (message.stream) streamed.push(message)
    })
    fleet.tell({ type: 'ledger', on: true })
    const reports = fleet.ask<{ report: FleetReport }>({ type: 'fire' }, survivors)
    victim!.send({ type: 'fire' })
    await sleep(1500)
    const exited = new Promise((resolve) => victim!.once('exit', resolve))
    const killedAt = Date.now()
    victim!.kill('SIGKILL')
    await exited
    await reports
    const last = streamed.at(-1)!
    const lost = last.ledger - (await ledgerInRedis(victim!.pid!, run.key))
    const lastInterval = streamed.filter((m) => m.at > killedAt - 2 * 50 - SLACK_MS).length
    console.log(
      `killed after ${last.ledger} ledger admissions: ${lost} not in Redis (${lastInterval} in its last interval and slack)`,
    )
    expect(lost).toBeLessThanOrEqual(lastInterval)
    expect(lost).toBeGreaterThanOrEqual(0)
  }, 60_000)
})

describe('SyncedStore: Redis absent from the start', () => {
  it('decides within its bound (storeTimeout), then locally within its share, and says so', async () => {
    const port = await freePort() // nothing listens there
    const client = new Redis({ port, host: '127.0.0.1', retryStrategy: () => 50, maxRetriesPerRequest: 1 })
    client.on('error', () => {})
    const errors: string[] = []
    const store = new SyncedStore({
      store: bounded(new RedisStore({ client, prefix }), TIMEOUT_MS),
      processes: 4,
      onError: (error) => errors.push(error.message),
    })
    const algorithm = fixedWindow({ limit: 100, window: '1h' })
    const started = performance.now()
    const decisions = await Promise.all(Array.from({ length: 60 }, () => store.consume(algorithm, 'k', 1)))
    const waited = performance.now() - started
    expect(waited).toBeLessThan(TIMEOUT_MS + SLACK_MS)
    expect(decisions.filter((d) => d.allowed)).toHaveLength(25) // its share of 100 among 4
    expect(decisions.every((d) => d.source === 'offline')).toBe(true)
    expect(errors.length).toBeGreaterThanOrEqual(1) // the failed read was reported
    // Later requests do not wait at all: the circuit is open.
    const again = performance.now()
    expect((await store.consume(algorithm, 'k', 1)).source).toBe('offline')
    expect(performance.now() - again).toBeLessThan(SLACK_MS)
    await store.close()
    client.disconnect()
  }, 30_000)
})

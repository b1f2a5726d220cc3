// Four API server processes share one concurrency limit in Redis; one is killed with SIGKILL mid-request.
// The units it held come back once their lease runs out (on the Redis server's clock: the test polls the
// store's state, it asserts no timing; leases are read in the key's sorted set), and no unit is ever given back twice: not a lease released again,
// not the dead server's lease released after it expired, while other requests hold the key's units.
import type { ChildProcess } from 'node:child_process'
import { concurrency, createLimiter } from '@floodgate/core'
import { type Fleet, requireSharedRedis } from '@floodgate/test-harness'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { RedisStore } from '../src/index.js'
import type { ServerMessage } from './fixtures/concurrency-server.js'
import { forkRedisFixture } from './fixtures/fork-fixture.js'
import { sharedRedisForFile, TEST_DB } from './helpers.js'

const PROCESSES = 4
const LIMIT = 4
const LEASE_MS = 300 // short, so the dead server's unit comes back within the test; nothing asserted depends on it
const shared = sharedRedisForFile('concurrency-processes')
let fleet: Fleet

beforeAll(async () => {
  const { port } = await requireSharedRedis()
  fleet = await forkRedisFixture('concurrency-server', { size: PROCESSES })
  const open: ServerMessage = {
    type: 'open',
    port,
    db: TEST_DB,
    prefix: shared.prefix,
    limit: LIMIT,
    leaseMs: LEASE_MS,
  }
  await fleet.ask(open)
}, 60_000)
afterAll(async () => {
  await fleet?.stop()
})

type Started = { allowed: boolean; lease?: string; remaining: number }
const start = async (child: ChildProcess) => (await fleet.ask<Started>({ type: 'start' }, [child]))[0]!
const end = (child: ChildProcess, lease: string) => fleet.ask({ type: 'end', lease }, [child])

describe('concurrency across processes sharing one Redis', () => {
  it('a server killed mid-request: its units expire after the lease; nothing is given back twice', async () => {
    const algorithm = concurrency({ limit: LIMIT, lease: LEASE_MS })
    const store = new RedisStore({ client: shared.client, prefix: shared.prefix })
    const parent = createLimiter({ algorithm, store })
    const free = async () => (await parent.peek('shared')).remaining
    // Whether a lease's unit is still held in Redis: its member in the key's sorted set (`<lease>:<unit>`). Read
    // as membership, not as a count, so that no assertion depends on how fast the test runs against the lease.
    const rkey = store.keyOf(algorithm, 'shared')
    const holds = async (lease: string) =>
      (await shared.client.zscore(rkey, lease.replace(/:\d+$/, ':1'))) !== null
    const [a, b, c, doomed] = fleet.children as [ChildProcess, ChildProcess, ChildProcess, ChildProcess]

    // One request in flight on each server: the limit. A fifth, on any server, is refused.
    const held: Started[] = []
    for (const server of [a, b, c, doomed]) held.push(await start(server))
    expect(held.map((h) => h.allowed)).toEqual([true, true, true, true])
    expect(new Set(held.map((h) => h.lease)).size).toBe(PROCESSES)
    expect((await start(a)).allowed).toBe(false)

    // The fourth server dies mid-request, its unit never given back by it.
    const exited = new Promise((resolve) => doomed.once('exit', resolve))
    doomed.kill('SIGKILL')
    await exited

    // The others' requests end: each frees its own unit (released again, by itself or another server: nothing).
    await end(a, held[0]!.lease!)
    await end(a, held[0]!.lease!)
    await end(b, held[1]!.lease!)
    await end(c, held[2]!.lease!)
    await end(b, held[0]!.lease!)
    for (const h of held.slice(0, 3)) expect(await holds(h.lease!)).toBe(false)

    // The dead server's unit comes back when its lease runs out, on the Redis server's clock.
    await vi.waitFor(async () => expect(await free()).toBe(LIMIT), { timeout: 10_000, interval: 25 })

    // New requests fill the limit; the dead server's lease, released late (by anyone), frees none of theirs.
    const next: Started[] = []
    for (const server of [a, b, c, a]) next.push(await start(server))
    expect(next.every((n) => n.allowed)).toBe(true)
    await parent.release('shared', held[3]!.lease!)
    await end(a, held[3]!.lease!)
    await end(b, held[1]!.lease!)
    for (const n of next) expect(await holds(n.lease!)).toBe(true)

    // Each of them frees exactly its own.
    for (const [i, n] of next.entries()) {
      await end([a, b, c, a][i]!, n.lease!)
      expect(await holds(n.lease!)).toBe(false)
      for (const rest of next.slice(i + 1)) expect(await holds(rest.lease!)).toBe(true)
    }
    await vi.waitFor(async () => expect(await free()).toBe(LIMIT))
  })
})

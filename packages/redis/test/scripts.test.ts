import { createHash } from 'node:crypto'
import {
  fixedWindow,
  gcra,
  leakyBucket,
  slidingWindowCounter,
  slidingWindowLog,
  tokenBucket,
} from '@floodgate/core'
import { type RedisServer, startRedis } from '@floodgate/testkit'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALL_SCRIPTS, type RedisClient, RedisStore, replyCode } from '../src/index.js'
import { CLIENT_NAMES, openClient, type TestClient } from './helpers.js'

// `client` (ioredis) inspects the server; the stores use each client the store takes in turn.
let server: RedisServer
let client: Redis
const storeClients = new Map<string, TestClient>()

beforeAll(async () => {
  server = await startRedis()
  client = new Redis(server.url)
  for (const name of CLIENT_NAMES) {
    const opened = openClient(name, { port: server.port })
    await opened.ready
    storeClients.set(name, opened)
  }
})
afterAll(async () => {
  for (const opened of storeClients.values()) await opened.close()
  await client?.quit()
  await server?.stop()
})

const algorithms = [
  fixedWindow({ limit: 3, window: '1s' }),
  slidingWindowCounter({ limit: 3, window: '1s' }),
  slidingWindowLog({ limit: 3, window: '1s' }),
  tokenBucket({ capacity: 3, refillRate: 1, interval: '1s' }),
  leakyBucket({ capacity: 3, leakRate: 1, interval: '1s', mode: 'shape' }),
  gcra({ rate: 3, period: '1s' }),
]

describe('Lua scripts', () => {
  it('each SHA1 is the one SCRIPT LOAD answers', async () => {
    for (const script of ALL_SCRIPTS) {
      expect(script.sha).toBe(createHash('sha1').update(script.source).digest('hex'))
      expect(await client.script('LOAD', script.source), script.name).toBe(script.sha)
    }
  })
})

for (const name of CLIENT_NAMES)
  describe(`Lua scripts through ${name}`, () => {
    const of = (): RedisClient => storeClients.get(name)!.client

    it('NOSCRIPT loads the script and retries, once', async () => {
      await client.script('FLUSH')
      const commands = await commandCount()
      const store = new RedisStore({ client: of(), prefix: `${name}-noscript`, failMode: 'closed' })
      const decision = await store.consume(algorithms[0]!, 'k', 1)
      expect(decision).toMatchObject({ allowed: true, source: 'redis' })
      const after = await commandCount()
      expect(after.evalsha - commands.evalsha).toBe(1)
      expect(after.eval - commands.eval).toBe(1)
      // Now it is loaded: one EVALSHA per decision and nothing else.
      await store.consume(algorithms[0]!, 'k', 1)
      const last = await commandCount()
      expect(last.evalsha - after.evalsha).toBe(1)
      expect(last.eval - after.eval).toBe(0)
    })

    it('an error reply other than NOSCRIPT is not retried: the fail mode decides, onError hears it', async () => {
      await client.rpush(`${name}-wrongtype:{k}:${algorithms[0]!.id}`, 'not a state')
      const errors: string[] = []
      const store = new RedisStore({
        client: of(),
        prefix: `${name}-wrongtype`,
        failMode: 'closed',
        onError: (error) => errors.push(replyCode(error) ?? error.message),
      })
      const before = await commandCount()
      const decision = await store.consume(algorithms[0]!, 'k', 1)
      expect(decision).toMatchObject({ allowed: false, source: 'fail-closed' })
      expect(errors).toEqual(['WRONGTYPE'])
      const after = await commandCount()
      expect(after.evalsha - before.evalsha).toBe(1)
      expect(after.eval - before.eval).toBe(0)
      // An error reply is not an outage: the next decision goes to Redis again.
      await client.del(`${name}-wrongtype:{k}:${algorithms[0]!.id}`)
      expect((await store.consume(algorithms[0]!, 'k', 1)).source).toBe('redis')
    })

    it('every key written has a TTL; a refund never creates a key; the server clock is used without `now`', async () => {
      const store = new RedisStore({ client: of(), prefix: `${name}-ttl`, expiryGraceMs: 500 })
      for (const algorithm of algorithms) {
        const key = `ttl-${algorithm.kind}`
        const rkey = store.keyOf(algorithm, key)
        await store.refund(algorithm, key, 1)
        expect(await client.exists(rkey), `${algorithm.kind}: refund created a key`).toBe(0)
        const refused = await store.peek(algorithm, key, 100)
        expect(refused.allowed).toBe(false)
        expect(await client.exists(rkey)).toBe(0)
        await store.consume(algorithm, key, 2)
        const ttl = await client.pttl(rkey)
        expect(ttl, algorithm.kind).toBeGreaterThan(0)
        expect(ttl, algorithm.kind).toBeLessThanOrEqual(2 * algorithm.windowMs + 500 + 1)
        await store.refund(algorithm, key, 1)
        expect(await client.pttl(rkey), algorithm.kind).toBeGreaterThan(0)
        await store.refund(algorithm, key, 5)
        const left = await client.pttl(rkey)
        expect(left === -2 || left > 0, `${algorithm.kind}: pttl ${left} after refunds`).toBe(true)
        expect((await store.peek(algorithm, key, 1)).remaining, algorithm.kind).toBe(algorithm.limit)
        await store.reset(algorithm, key)
        expect(await client.exists(rkey)).toBe(0)
      }
    })

    it('with no clock, Redis TIME decides windows', async () => {
      const store = new RedisStore({ client: of(), prefix: `${name}-servertime` })
      const algorithm = fixedWindow({ limit: 2, window: '1h' })
      const decisions = await Promise.all([1, 2, 3].map(() => store.consume(algorithm, 'k', 1)))
      expect(decisions.map((d) => d.allowed).sort()).toEqual([false, true, true])
      const refused = decisions.find((d) => !d.allowed)!
      const [sec, usec] = (await client.time()) as [number | string, number | string]
      const serverNow = Number(sec) * 1000 + Number(usec) / 1000
      const untilNextHour = Math.ceil(serverNow / 3_600_000) * 3_600_000 - serverNow
      expect(Math.abs(refused.retryAfterMs - untilNextHour)).toBeLessThan(1000)
    })
  })

async function commandCount(): Promise<{ eval: number; evalsha: number }> {
  const info = await client.info('commandstats')
  const calls = (name: string) => Number(new RegExp(`cmdstat_${name}:calls=(\\d+)`).exec(info)?.[1] ?? 0)
  return { eval: calls('eval'), evalsha: calls('evalsha') }
}

// Every Redis queue script's SHA1 is the one SCRIPT LOAD answers, so EVALSHA finds it.
import { type RedisServer, startRedis } from '@floodgate/test-harness'
import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QUEUE_SCRIPTS } from '../src/queue/scripts/index.js'

let server: RedisServer
let client: Redis
beforeAll(async () => {
  server = await startRedis()
  client = new Redis(server.url)
})
afterAll(async () => {
  await client?.quit()
  await server?.stop()
})

describe('the Redis queue scripts', () => {
  it.each(QUEUE_SCRIPTS.map((s) => [s.name, s] as const))(
    '%s: SHA1 matches SCRIPT LOAD',
    async (_name, script) => {
      expect(await client.script('LOAD', script.source)).toBe(script.sha)
    },
  )
})

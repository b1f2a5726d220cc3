// Runs examples/multi-instance/run.mjs (three Express processes on one Redis, then counting locally and syncing
// to Redis, then on per-process memory stores) and checks its counts: exactly the limit with the RedisStore,
// about the limit (within the SyncedStore's stated bound) synced, three times it with memory stores.
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Redis } from 'ioredis'
import { expect, it } from 'vitest'
import { requireBuilt } from '../../helpers/start-example.js'

const here = dirname(fileURLToPath(import.meta.url))
const REDIS_URL = 'redis://127.0.0.1:6379/11'

function run(): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(here, '..', 'run.mjs'), '--json'], {
      env: { ...process.env, REDIS_URL },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk) => {
      output += chunk
    })
    child.stderr.on('data', (chunk) => {
      output += chunk
    })
    child.once('exit', (code) => resolve({ code, output }))
  })
}

it('three servers on one Redis let exactly 100 through, synced about 100, per-process memory stores 300', async () => {
  requireBuilt('multi-instance')
  const { code, output } = await run()
  expect(code, output).toBe(0)
  const result = JSON.parse(output.trim().split('\n').at(-1)!)
  expect(result.redis).toMatchObject({ sent: 360, passed: 100, refused: 260 })
  expect(result.redis.perServer.reduce((a: number, b: number) => a + b, 0)).toBe(100)
  expect(result.memory).toMatchObject({ sent: 360, passed: 300, refused: 60, perServer: [100, 100, 100] })
  expect(output).toContain('exactly 100 passed')
  // Synced: each server counts its third locally; the total stays within the stated bound of the limit (a burst
  // this short ends before the servers' allowances have all been handed out again, so a few may go unused).
  expect(result.bound).toBe(100)
  expect(result.synced.sent).toBe(360)
  expect(result.synced.passed).toBeLessThanOrEqual(100 + result.bound)
  expect(result.synced.passed).toBeGreaterThanOrEqual(90)
  expect(result.synced.perServer.every((n: number) => n > 0 && n < 100)).toBe(true)

  // It deleted its own keys, and only those.
  expect(result.removed).toBeGreaterThanOrEqual(1)
  const redis = new Redis(REDIS_URL)
  try {
    const left: string[] = []
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${result.prefix}:*`, 'COUNT', 1000)
      cursor = next
      left.push(...keys)
    } while (cursor !== '0')
    expect(left).toEqual([])
  } finally {
    await redis.quit()
  }
}, 90_000)

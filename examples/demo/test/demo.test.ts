// Runs the README's first command's script (examples/demo/demo.mjs) and checks what a newcomer sees.
import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, it } from 'vitest'
import { requireBuilt } from '../../helpers/start-example.js'

const demo = join(dirname(fileURLToPath(import.meta.url)), '..', 'demo.mjs')

it('prints the passes, the 429s, the headers and the body, and exits 0', async () => {
  requireBuilt('demo')
  const { stdout } = await promisify(execFile)(process.execPath, [demo], { timeout: 50_000 })
  const rows = stdout.split('\n').filter((line) => /^\s+\d+\s+GET \/hello/.test(line))
  expect(rows.map((line) => line.trim().split(/\s+/)[3])).toEqual([
    '200',
    '200',
    '200',
    '200',
    '200',
    '429',
    '429',
    '429',
  ])
  expect(stdout).toContain('RateLimit-Policy: 5;w=30')
  expect(stdout).toContain('Cache-Control: no-store')
  expect(stdout).toMatch(/Retry-After: \d+/)
  expect(stdout).toMatch(/\{"error":"rate_limited","message":"Too many requests, retry in \d+ seconds?\.",/)
  // Scene 2: the third export is refused by 'export', the fourth search by 'ip'
  expect(stdout).toMatch(/3\s+POST \/export\s+429\s+export\s+"ip";r=3;t=\d+, "export";r=0;t=60\s+60/)
  expect(stdout).toMatch(/7\s+GET \/search\s+429\s+ip\s+"ip";r=0;t=\d+\s+\d+/)
}, 60_000)

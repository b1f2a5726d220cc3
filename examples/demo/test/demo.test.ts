// Runs the README's first command's script (examples/demo/demo.mjs) and checks what a newcomer sees.
import { execFile } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { it } from 'vitest'
import { expectDemoOutput } from '../../helpers/example-checks.js'
import { requireBuilt } from '../../helpers/start-example.js'

const demo = join(dirname(fileURLToPath(import.meta.url)), '..', 'demo.mjs')

it('prints the passes, the 429s, the headers and the body, and exits 0', async () => {
  requireBuilt('demo')
  const { stdout } = await promisify(execFile)(process.execPath, [demo], { timeout: 50_000 })
  expectDemoOutput(stdout)
}, 60_000)

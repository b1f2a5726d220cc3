// Shared by the playground's browser test and the screenshot script: the Vite dev server of the playground
// on a free port of 127.0.0.1, and Debian's chromium driven by playwright-core (never a downloaded browser).

import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'
import { createServer } from 'vite'

export const CHROMIUM = '/usr/bin/chromium'
const playgroundConfig = fileURLToPath(new URL('../playground/vite.config.ts', import.meta.url))

/** Start the playground's dev server on a free port of 127.0.0.1; resolves with its URL and `close()`. */
export async function startPlayground({ configFile = playgroundConfig } = {}) {
  const server = await createServer({
    configFile,
    server: { host: '127.0.0.1', port: 0, strictPort: false },
    logLevel: 'error',
  })
  await server.listen()
  const address = server.httpServer?.address()
  if (!address || typeof address === 'string') throw new Error('the playground server has no TCP address')
  return { url: `http://127.0.0.1:${address.port}/`, close: () => server.close() }
}

/**
 * Launch Debian's chromium headless with a fresh profile. Without the networking flags its background
 * connections are refused by this machine and slow every page down.
 */
export async function launchChromium() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium); .ci/run does`,
    )
  }
  const profile = mkdtempSync(path.join(tmpdir(), 'floodgate-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  })
  return {
    context,
    async close() {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

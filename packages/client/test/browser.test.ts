// createFetch in a real browser: the main entry bundled for the browser, run in Debian's chromium (driven
// by playwright-core) against a local server, with relative URLs. Never skipped: without /usr/bin/chromium
// it fails and says how to install it. In-page waits go through an injected sleep, so nothing sleeps.
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { type BrowserContext, chromium } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { plainServer, type TestServer } from './servers.js'

const CHROMIUM = '/usr/bin/chromium'

let server: TestServer
let context: BrowserContext
let profile: string
/** The statuses of the /api requests, in order. */
const api: number[] = []

declare global {
  // The bundle's global in the page.
  var floodgateClient: typeof import('../src/index.js')
}

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`)
  const bundle = await build({
    entryPoints: [fileURLToPath(new URL('../src/index.ts', import.meta.url))],
    bundle: true,
    write: false,
    platform: 'browser',
    format: 'iife',
    globalName: 'floodgateClient',
  })
  const script = bundle.outputFiles[0]!.text
  // The first /api request is refused with Retry-After: 3; then 200s that say the quota is spent for 5 s.
  server = await plainServer((req, res) => {
    if (req.url === '/client.js') res.writeHead(200, { 'content-type': 'text/javascript' }).end(script)
    else if (req.url === '/api') {
      api.push(api.length === 0 ? 429 : 200)
      if (api.length === 1) res.writeHead(429, { 'retry-after': '3' }).end('refused')
      else res.writeHead(200, { 'ratelimit-remaining': '0', 'ratelimit-reset': '5' }).end(`ok ${api.length}`)
    } else
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><script src="/client.js"></script>')
  })
  profile = mkdtempSync(join(tmpdir(), 'floodgate-client-chromium-'))
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
    ],
  })
}, 90_000)

afterAll(async () => {
  await context?.close()
  await server?.close()
  if (profile) rmSync(profile, { recursive: true, force: true })
})

it('in chromium: retries a 429 after Retry-After plus jitter, paces at remaining 0, honours an abort', async () => {
  const page = await context.newPage()
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(server.url)
  const result = await page.evaluate(async () => {
    const sleeps: number[] = []
    let clock = Date.UTC(2026, 0, 1)
    const fetch = floodgateClient.createFetch({
      random: () => 0.5,
      pace: true,
      now: () => clock,
      sleep: async (ms) => {
        sleeps.push(ms)
        clock += ms
      },
    })
    const first = await fetch('/api')
    const second = await fetch('/api')
    const controller = new AbortController()
    const stuck = floodgateClient.createFetch({ sleep: () => new Promise(() => {}), pace: true })
    await (await stuck('/api')).text()
    const pending = stuck('/api', { signal: controller.signal }).then(
      () => 'sent',
      (e: Error) => e.message,
    )
    controller.abort(new Error('left the page'))
    return {
      first: [first.status, await first.text()],
      second: await second.text(),
      sleeps,
      aborted: await pending,
    }
  })
  expect(errors).toEqual([])
  expect(result).toEqual({
    first: [200, 'ok 2'],
    second: 'ok 3',
    // Retry-After 3 s plus full jitter at 0.5 of 4 s; then held back 5 s for the reset.
    sleeps: [5_000, 5_000],
    aborted: 'left the page',
  })
  expect(api).toEqual([429, 200, 200, 200])
})

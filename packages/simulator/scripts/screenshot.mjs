#!/usr/bin/env node
// The README's picture of the playground: docs/images/playground.png, taken in Debian's chromium on the
// page's virtual clock (the same scene every time: the token bucket (capacity 10, 1 token / 100 ms) after a burst of 15).
//   node packages/simulator/scripts/screenshot.mjs

import { fileURLToPath } from 'node:url'
import { launchChromium, startPlayground } from './browser.mjs'

const out = fileURLToPath(new URL('../../../docs/images/playground.png', import.meta.url))
const server = await startPlayground()
const browser = await launchChromium()
try {
  const page = await browser.context.newPage()
  await page.setViewportSize({ width: 1200, height: 1000 })
  await page.goto(`${server.url}?clock=virtual`)
  await page.waitForSelector('body[data-ready="true"]')
  await page.evaluate(() => window.__floodgate.clock.advance(1000))
  await page.click('#send-burst')
  await page.evaluate(() => window.__floodgate.clock.advance(100))
  await page.click('#send-one')
  await page.evaluate(() => window.__floodgate.clock.advance(350))
  await page.screenshot({ path: out, fullPage: true })
  console.error(`wrote ${out}`)
} finally {
  await browser.close()
  await server.close()
}

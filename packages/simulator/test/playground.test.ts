// The playground in a real headless browser: Debian's chromium driven by playwright-core, the page on its
// virtual clock (?clock=virtual), so the test moves time instead of sleeping. Never skipped: without
// /usr/bin/chromium it fails and says how to install it.
import type { Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchChromium, startPlayground } from '../scripts/browser.mjs'

let server: Awaited<ReturnType<typeof startPlayground>>
let browser: Awaited<ReturnType<typeof launchChromium>>
let page: Page

const statuses = () =>
  page.$$eval('#strip li', (chips) => chips.map((c) => Number((c as HTMLElement).dataset.status)))
const lastChip = () =>
  page.$eval('#strip li:last-child', (c) => ({ ...(c as HTMLElement).dataset, text: c.textContent }))
const advance = (ms: number) => page.evaluate((by) => (window as any).__floodgate.clock.advance(by), ms)
const bucketText = () => page.textContent('#bucket [data-gauge]')

async function open() {
  page = await browser.context.newPage()
  const errors: string[] = []
  page.on('pageerror', (error) => errors.push(error.message))
  await page.goto(`${server.url}?clock=virtual`)
  await page.waitForSelector('body[data-ready="true"]', { timeout: 30_000 }).catch(() => {
    throw new Error(`the playground did not start: ${errors.join('; ') || 'no page error'}`)
  })
}

beforeAll(async () => {
  server = await startPlayground()
  browser = await launchChromium()
}, 90_000)

afterAll(async () => {
  await browser?.close()
  await server?.close()
})

describe('the playground, in chromium', { timeout: 60_000 }, () => {
  it('runs the live token bucket: a burst passes exactly `capacity`, the next gets 429, one passes after the refill', async () => {
    await open()
    const capacity = Number(await page.inputValue('#live-capacity'))
    const refillMs = Number(await page.inputValue('#live-refill'))
    expect([capacity, refillMs]).toEqual([10, 100])
    expect(await bucketText()).toBe('10 / 10')

    await page.click('#send-burst')
    const burst = await statuses()
    expect(burst.length).toBeGreaterThan(capacity)
    expect(burst.slice(0, capacity)).toEqual(new Array(capacity).fill(200))
    expect(burst[capacity]).toBe(429)
    const eleventh = await page.$eval(`#strip li:nth-child(${capacity + 1})`, (c) => ({
      ...(c as HTMLElement).dataset,
    }))
    expect(eleventh).toMatchObject({ status: '429', retryAfter: '1', retryAfterMs: String(refillMs) })
    expect(await bucketText()).toBe('0 / 10')

    await advance(refillMs - 1)
    await page.click('#send-one')
    expect(await lastChip()).toMatchObject({ status: '429', retryAfterMs: '1' }) // 1 ms too early
    await advance(1)
    await page.click('#send-one')
    expect(await lastChip()).toMatchObject({ status: '200' })
    expect(await bucketText()).toBe('0 / 10')
    await advance(10 * refillMs)
    expect(await bucketText()).toBe('10 / 10')
    await page.close()
  })

  it('follows the sliders: capacity 5 lets a burst of 5 through', async () => {
    await open()
    await page.fill('#live-capacity', '5')
    await page.click('#send-burst')
    const burst = await statuses()
    expect(burst.slice(0, 6)).toEqual([200, 200, 200, 200, 200, 429])
    expect(await bucketText()).toBe('0 / 5')
    await page.close()
  })

  it('offers every algorithm: a shaping leaky bucket delays instead of refusing', async () => {
    await open()
    const options = await page.$$eval('#live-algorithm option', (os) =>
      os.map((o) => (o as HTMLOptionElement).value),
    )
    expect(options).toEqual([
      'token-bucket',
      'leaky-bucket-shape',
      'leaky-bucket-police',
      'gcra',
      'fixed-window',
      'sliding-window-counter',
      'sliding-window-log',
    ])
    await page.selectOption('#live-algorithm', 'leaky-bucket-shape')
    await page.click('#send-burst')
    const delays = await page.$$eval('#strip li', (chips) =>
      chips.slice(0, 10).map((c) => (c as HTMLElement).dataset.delayMs ?? '0'),
    )
    expect(delays).toEqual(['0', '100', '200', '300', '400', '500', '600', '700', '800', '900'])
    await page.close()
  })

  it('runs two algorithms side by side over one traffic pattern', async () => {
    await open()
    expect(await page.$$eval('#compare-charts svg', (svgs) => svgs.length)).toBe(2)
    // the defaults: fixed window against sliding log, 10 at 0.9 s and 10 at 1.1 s, limit 10 a second
    expect(await page.textContent('#compare-verdict')).toContain(
      'A admitted 20, B admitted 10. They decided 10 requests differently: 10 requests admitted by A and refused by B, 0 requests admitted by B and refused by A.',
    )
    await page.selectOption('#b-algorithm', 'sliding-window-counter')
    expect(await page.textContent('#compare-verdict')).toContain(
      'A admitted 20, B admitted 11. They decided 9 requests differently: 9 requests admitted by A and refused by B, 0 requests admitted by B and refused by A.',
    )
    // steady traffic above the limit: each admits some that the other refuses, and the summary says which way
    await page.selectOption('#traffic-pattern', 'steady')
    expect(await page.textContent('#compare-verdict')).toContain(
      '45 requests (steady 15 per 1s). A admitted 30, B admitted 28. They decided 14 requests differently: 8 requests admitted by A and refused by B, 6 requests admitted by B and refused by A.',
    )
    // the same algorithm on both sides decides every request alike, and the summary says so
    await page.selectOption('#b-algorithm', 'fixed-window')
    expect(await page.textContent('#compare-verdict')).toContain(
      'A and B admitted the same 30 requests and refused the same 15.',
    )
    await page.close()
  })
})

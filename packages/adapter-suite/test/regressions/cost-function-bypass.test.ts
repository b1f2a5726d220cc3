// Regression: a cost function that failed (threw, or returned NaN, a negative, Infinity, a string, null, an
// object, a bigint) took failMode and let every request through: 20 of 20 passed at a limit of 5. A failing
// cost is charged the default cost, and no header value gets more through than a well-formed one.
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, errorLog, openApps, statusesOf } from '../../src/index.js'

/** The docs' example: a batch size from a header, bounded so no header makes a request free or huge. */
const batchCost = (req: { headers: Record<string, string | string[] | undefined> }) =>
  Math.min(100, Math.max(1, Number.parseInt(String(req.headers['x-batch-size']), 10) || 1))

describe.each(drivers)('$name', (driver) => {
  const open = openApps()
  const app = async (cost: unknown, extra: Record<string, unknown> = {}) =>
    open(
      await driver.createApp({
        options: { limit: 5, window: '1m', store: new MemoryStore(), cost, ...extra },
      }),
    )

  it.each(['abc', '-5', 'Infinity', '0', '', '1e-300', '0x10', ' 2', '5.5'])(
    'the docs’ cost example with x-batch-size %j gets no more through than well-formed input',
    async (value) => {
      const passed = (
        await statusesOf(await app(batchCost), 20, { headers: { 'x-batch-size': value } })
      ).filter((s) => s === 200).length
      expect(passed).toBeLessThanOrEqual(5)
    },
  )

  it.each([
    ['a string', () => '5'],
    ['null', () => null],
    ['an object', () => ({})],
    ['a bigint', () => 10n],
    ['NaN', () => Number.NaN],
    ['a negative', () => -5],
    ['Infinity', () => Number.POSITIVE_INFINITY],
    [
      'a throw',
      () => {
        throw new Error('bad header')
      },
    ],
    [
      'a rejection',
      async () => {
        throw new Error('bad header')
      },
    ],
  ])(
    'a cost function returning %s is charged the default cost, reported once a request',
    async (_name, cost) => {
      const log = errorLog()
      const a = await app(cost, { onError: log.onError })
      expect(await statusesOf(a, 7)).toEqual([200, 200, 200, 200, 200, 429, 429])
      expect(log.errors).toHaveLength(7)
      expect(new Set(log.codes()).size).toBe(1)
      expect(log.codes()[0]).toMatch(/^ERR_FLOODGATE_(INVALID_COST|FUNCTION_FAILED)$/)
    },
  )

  it('a cost of 0 is a free request: not counted, headers still sent', async () => {
    const a = await app((req: { headers: Record<string, string | undefined> }) =>
      req.headers['x-free'] ? 0 : 1,
    )
    for (let i = 0; i < 10; i++) {
      const free = await a.request({ path: '/', headers: { 'x-free': '1' } })
      expect(free.status).toBe(200)
      expect(free.headers['ratelimit-remaining']).toBe('5')
    }
    expect(await statusesOf(a, 6)).toEqual([200, 200, 200, 200, 200, 429])
  })
})

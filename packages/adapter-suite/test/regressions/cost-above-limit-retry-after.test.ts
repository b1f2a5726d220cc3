// Regression: a request whose cost is above a bucket's capacity can never pass, yet the refusal said
// `Retry-After: 1`, so a polite client waited and retried for ever. It is now answered 413
// `cost_exceeds_limit`, with no Retry-After, for every algorithm; it spends nothing.
import { MemoryStore } from '@floodgate/core'
import { everyAlgorithm } from '@floodgate/test-harness'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

const algorithms = everyAlgorithm(3, '1s')

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it.each(algorithms.map((a) => [a.kind, a] as const))(
    '%s: cost 5 of 3 is 413, no Retry-After',
    async (_kind, algorithm) => {
      const a = open(
        await driver.createApp({
          options: {
            algorithm,
            store: new MemoryStore(),
            cost: (req: { headers: Record<string, string | undefined> }) =>
              Number(req.headers['x-cost'] ?? 1),
          },
        }),
      )
      const res = await a.request({ path: '/', headers: { 'x-cost': '5' } })
      expect(res.status).toBe(413)
      expect(res.headers['retry-after']).toBeUndefined()
      expect(res.headers['cache-control']).toBe('no-store')
      expect(res.body).toMatchObject({ error: 'cost_exceeds_limit', policy: 'ip', cost: 5, limit: 3 })
      // It spent nothing: the whole quota is still there.
      expect((await a.request({ path: '/', headers: { 'x-cost': '3' } })).status).toBe(200)
    },
  )

  it('problem+json gives the same answer as RFC 9457 problem details', async () => {
    const a = open(
      await driver.createApp({
        options: { algorithm: algorithms[3], cost: 5, format: 'problem+json', store: new MemoryStore() },
      }),
    )
    const res = await a.request({ path: '/' })
    expect(res.status).toBe(413)
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/)
    expect(res.body).toMatchObject({
      title: 'Content Too Large',
      status: 413,
      policy: 'ip',
      cost: 5,
      limit: 3,
    })
  })
})

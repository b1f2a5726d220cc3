// Starts examples/metrics/server.mjs as a child process, sends it real HTTP requests, scrapes /metrics over
// HTTP and checks the counts against the requests it sent.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { type RunningExample, startExample } from '../../helpers/start-example.js'
import { expectMetricsExample } from './metrics-check.js'

let app: RunningExample | undefined
beforeAll(async () => {
  app = await startExample('metrics')
})
afterAll(async () => {
  await app?.stop()
})

describe('examples/metrics', () => {
  it('/metrics, scraped and parsed as Prometheus text, counts what was sent: allowed, limited, skipped, near the limit', async () => {
    await expectMetricsExample(app!.url)
  })
})

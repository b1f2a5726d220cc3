// Starts examples/metrics/server.mjs as a child process, sends it real HTTP requests, scrapes /metrics over
// HTTP and checks the counts against the requests it sent.
import { describe, it } from 'vitest'
import { useExample } from '../../helpers/use-example.js'
import { expectMetricsExample } from './metrics-check.js'

const example = useExample('metrics')

describe('examples/metrics', () => {
  it('/metrics, scraped and parsed as Prometheus text, counts what was sent: allowed, limited, skipped, near the limit', async () => {
    await expectMetricsExample(example.url)
  })
})

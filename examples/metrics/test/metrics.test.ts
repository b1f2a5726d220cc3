// Starts examples/metrics/server.mjs as a child process, sends it real HTTP requests, scrapes /metrics over
// HTTP and checks the counts against the requests it sent.
import { describe, it } from 'vitest'
import { useExample } from '../../helpers/use-example.js'
import { expectMetricsExample } from './metrics-check.js'

describe.each([
  { major: 'Express 5', olderMajor: false },
  { major: 'Express 4', olderMajor: true },
])('examples/metrics on $major', ({ olderMajor }) => {
  const example = useExample('metrics', { olderMajor })

  it('/metrics, scraped and parsed as Prometheus text, counts what was sent: allowed, limited, skipped, near the limit', async () => {
    await expectMetricsExample(example.url)
  })
})

// Starts examples/usage-plans/server.mjs as a child process and sends it real HTTP requests.
import { describe, it } from 'vitest'
import { expectUsagePlansExample } from '../../helpers/example-checks.js'
import { useExample } from '../../helpers/use-example.js'

describe.each([
  { major: 'Express 5', olderMajor: false },
  { major: 'Express 4', olderMajor: true },
])('examples/usage-plans on $major', ({ olderMajor }) => {
  const example = useExample('usage-plans', { olderMajor })

  it('the free plan’s burst and rate, the anonymous plan, an unknown key, the usage report and its reset', async () => {
    await expectUsagePlansExample(example.url)
  })
})

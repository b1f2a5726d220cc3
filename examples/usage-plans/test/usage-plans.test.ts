// Starts examples/usage-plans/server.mjs as a child process and sends it real HTTP requests.
import { afterAll, beforeAll, describe, it } from 'vitest'
import { expectUsagePlansExample } from '../../helpers/example-checks.js'
import { type RunningExample, startExample } from '../../helpers/start-example.js'

let app: RunningExample | undefined
beforeAll(async () => {
  app = await startExample('usage-plans')
})
afterAll(async () => {
  await app?.stop()
})

describe('examples/usage-plans', () => {
  it('the free plan’s burst and rate, the anonymous plan, an unknown key, the usage report and its reset', async () => {
    await expectUsagePlansExample(app!.url)
  })
})

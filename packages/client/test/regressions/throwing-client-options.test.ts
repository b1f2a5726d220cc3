// Regression: the client's other functions of the app's (`now`, `sleep`, `random`, a retry budget) are called
// inside the undici interceptor's own callbacks, where a throw was not the request's: a `sleep` that threw left
// the call pending for ever. Now the request fails with what it threw, as a `fetch` fails, through createFetch
// and the interceptor alike, and nothing is left unhandled.

import { watchUnhandled } from '@floodgate/test-harness'
import { Agent, request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFetch } from '../../src/fetch.js'
import type { ClientOptions } from '../../src/options.js'
import { createInterceptor } from '../../src/undici.js'
import { plainServer, type TestServer, virtualTime } from '../servers.js'

const unhandled = watchUnhandled()
let servers: TestServer[] = []
const agents: Agent[] = []
beforeEach(() => {
  unhandled.splice(0)
})
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()))
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

const broken = (what: string) => () => {
  throw new Error(`${what} is broken`)
}

/** Refuses every request with Retry-After: 1. */
async function refusing() {
  const server = await plainServer((_req, res) => res.writeHead(429, { 'retry-after': '1' }).end('refused'))
  servers.push(server)
  return server
}

const CASES: [string, (time: ReturnType<typeof virtualTime>) => ClientOptions][] = [
  ['now', (time) => ({ sleep: time.sleep, now: broken('now') })],
  ['sleep', (time) => ({ now: time.now, sleep: broken('sleep') })],
  ['random', (time) => ({ now: time.now, sleep: time.sleep, random: broken('random') })],
  [
    'budget',
    (time) => ({
      now: time.now,
      sleep: time.sleep,
      budget: { spend: broken('budget'), success: () => {} } as never,
    }),
  ],
]

describe.each(CASES)('a %s that throws', (what, options) => {
  it('createFetch rejects with it', async () => {
    const server = await refusing()
    const politeFetch = createFetch(options(virtualTime()))
    await expect(politeFetch(server.url)).rejects.toThrow(`${what} is broken`)
    await new Promise((resolve) => setImmediate(resolve))
    expect(unhandled).toEqual([])
  })

  it('the undici interceptor fails the request with it', async () => {
    const server = await refusing()
    const agent = new Agent()
    agents.push(agent)
    const dispatcher = agent.compose(createInterceptor(options(virtualTime())))
    await expect(request(server.url, { dispatcher })).rejects.toThrow(`${what} is broken`)
    await new Promise((resolve) => setImmediate(resolve))
    expect(unhandled).toEqual([])
  })
})

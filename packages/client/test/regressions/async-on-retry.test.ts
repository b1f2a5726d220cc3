// Regression: an async `onRetry` that rejected (a logger whose sink is down) was an unhandled rejection, and
// the process exited; docs/client.md says what `onRetry` throws is ignored. A throw and a rejection are now
// ignored alike (with a process warning once), through `createFetch` and the undici interceptor.

import { watchUnhandled } from '@floodgate/test-harness'
import { Agent, request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createFetch } from '../../src/fetch.js'
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

/** Refuses the first request (Retry-After: 5), then 200. */
async function refusingOnce() {
  const server = await plainServer((_req, res, n) => {
    if (n === 0) res.writeHead(429, { 'retry-after': '5' }).end('refused')
    else res.writeHead(200).end('ok')
  })
  servers.push(server)
  return server
}

const logSink = { write: async (_entry: unknown) => Promise.reject(new Error('log sink is down')) }

describe('an async onRetry that rejects', () => {
  it('createFetch: the retry happens and its answer is returned; nothing is left unhandled', async () => {
    const server = await refusingOnce()
    const time = virtualTime()
    let calls = 0
    const politeFetch = createFetch({
      now: time.now,
      sleep: time.sleep,
      onRetry: async (event) => {
        calls++
        await logSink.write(event)
      },
    })
    const res = await politeFetch(server.url)
    expect([res.status, await res.text()]).toEqual([200, 'ok'])
    expect(server.statuses).toEqual([429, 200])
    await new Promise((resolve) => setImmediate(resolve))
    expect(calls).toBe(1)
    expect(unhandled).toEqual([])
  })

  it('the undici interceptor: the same', async () => {
    const server = await refusingOnce()
    const time = virtualTime()
    let calls = 0
    const agent = new Agent()
    agents.push(agent)
    const dispatcher = agent.compose(
      createInterceptor({
        now: time.now,
        sleep: time.sleep,
        onRetry: async (event) => {
          calls++
          await logSink.write(event)
        },
      }),
    )
    const res = await request(server.url, { dispatcher })
    expect([res.statusCode, await res.body.text()]).toEqual([200, 'ok'])
    expect(server.statuses).toEqual([429, 200])
    await new Promise((resolve) => setImmediate(resolve))
    expect(calls).toBe(1)
    expect(unhandled).toEqual([])
  })
})

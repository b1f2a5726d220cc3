// Regression: the undici interceptor never settled when a retried 429's body trickled (a byte every 100 ms):
// it read the refusal to its end before retrying, and the end never came. docs/client.md: a retried refusal's
// body is read to its end and dropped, and nothing sits for hours inside a fetch. The drain is bounded now
// (DRAIN_LIMIT: 64 KiB, 1 s); past it the refusal is aborted and the request retried. `createFetch` cancels a
// retried refusal's body, and returns the retry's answer in the same case.
import { Agent, request } from 'undici'
import { afterEach, describe, expect, it } from 'vitest'
import { createFetch } from '../../src/fetch.js'
import { createInterceptor } from '../../src/undici.js'
import { plainServer, type TestServer, virtualTime } from '../servers.js'

let servers: TestServer[] = []
const agents: Agent[] = []
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()))
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

/** The first answer is a 429 (Retry-After: 0) whose body `body` writes and never ends; then 200. */
async function refusingWith(body: (res: import('node:http').ServerResponse) => () => void) {
  let requests = 0
  const server = await plainServer((_req, res, n) => {
    requests++
    if (n > 0) return void res.writeHead(200).end('ok')
    res.writeHead(429, { 'retry-after': '0', 'content-type': 'text/plain' })
    res.on('close', body(res))
  })
  servers.push(server)
  return { ...server, requests: () => requests }
}

/** A byte every 100 ms, for as long as the client reads. */
const trickle = (res: import('node:http').ServerResponse) => {
  const timer = setInterval(() => res.write('.'), 100)
  return () => clearInterval(timer)
}

/** Chunks of 16 KiB as fast as the client takes them, forever. */
const flood = (res: import('node:http').ServerResponse) => {
  const chunk = Buffer.alloc(16_384, 'x')
  let open = true
  const pump = () => {
    while (open && res.write(chunk)) {}
  }
  res.on('drain', pump)
  pump()
  return () => {
    open = false
  }
}

function interceptor() {
  const time = virtualTime()
  const agent = new Agent()
  agents.push(agent)
  return agent.compose(createInterceptor({ now: time.now, sleep: time.sleep }))
}

describe('the undici interceptor and a retried refusal whose body never ends', () => {
  it('a body that trickles: drained for at most DRAIN_LIMIT.ms (1 s), then the retry is sent and its 200 returned', async () => {
    const server = await refusingWith(trickle)
    const res = await request(server.url, { dispatcher: interceptor() })
    expect([res.statusCode, await res.body.text()]).toEqual([200, 'ok'])
    expect(server.requests()).toBe(2)
  })

  it('a body that floods: drained up to DRAIN_LIMIT.bytes (64 KiB), then the retry is sent', async () => {
    const server = await refusingWith(flood)
    const res = await request(server.url, { dispatcher: interceptor() })
    expect([res.statusCode, await res.body.text()]).toEqual([200, 'ok'])
    expect(server.requests()).toBe(2)
  })

  it('createFetch in the same case returns the retry too', async () => {
    const server = await refusingWith(trickle)
    const time = virtualTime()
    const res = await createFetch({ now: time.now, sleep: time.sleep })(server.url)
    expect([res.status, await res.text()]).toEqual([200, 'ok'])
    expect(server.requests()).toBe(2)
  })
})

import { afterEach, describe, expect, it } from 'vitest'
import { createFetch } from '../src/fetch.js'
import { plainServer, stuckSleep, type TestServer, virtualTime } from './servers.js'

let servers: TestServer[] = []
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()))
  servers = []
})

/** Refuses the first request with Retry-After: 5; records each request's method and body. */
async function echoServer() {
  const seen: { method: string; body: string }[] = []
  const server = await plainServer((req, res, n) => {
    let body = ''
    req.on('data', (chunk) => {
      body += chunk
    })
    req.on('end', () => {
      seen.push({ method: req.method!, body })
      if (n === 0) res.writeHead(429, { 'retry-after': '5' }).end('refused')
      else res.writeHead(200).end(`got ${body}`)
    })
  })
  servers.push(server)
  return { ...server, seen }
}

describe('createFetch', () => {
  it('has fetch’s signature: a string, a URL or a Request', async () => {
    const server = await echoServer()
    const time = virtualTime()
    const politeFetch = createFetch({ now: time.now, sleep: time.sleep })
    expect((await politeFetch(new URL(server.url))).status).toBe(200)
    expect((await politeFetch(new Request(server.url))).status).toBe(200)
  })

  it('sends a replayable body again: a string, bytes, a form', async () => {
    for (const body of ['hello', new TextEncoder().encode('hello'), new URLSearchParams({ a: 'hello' })]) {
      const server = await echoServer()
      const time = virtualTime()
      const res = await createFetch({ now: time.now, sleep: time.sleep })(server.url, { method: 'PUT', body })
      expect(res.status).toBe(200)
      expect(server.seen).toHaveLength(2)
      expect(server.seen[1]!.body).toBe(server.seen[0]!.body)
      expect(server.seen[1]!.body).toMatch(/hello/)
    }
  })

  it('a Request with a body: each attempt sends a clone, so the retry has the body', async () => {
    const server = await echoServer()
    const time = virtualTime()
    const request = new Request(server.url, { method: 'PUT', body: 'payload' })
    const res = await createFetch({ now: time.now, sleep: time.sleep })(request)
    expect(await res.text()).toBe('got payload')
    expect(server.seen.map((s) => s.body)).toEqual(['payload', 'payload'])
  })

  it('never retries a request whose body is a one-shot stream', async () => {
    const server = await echoServer()
    const time = virtualTime()
    const body = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('streamed'))
        controller.close()
      },
    })
    const res = await createFetch({ now: time.now, sleep: time.sleep })(server.url, {
      method: 'PUT',
      body,
      duplex: 'half',
    } as RequestInit)
    expect(res.status).toBe(429)
    expect(await res.text()).toBe('refused')
    expect(server.seen).toEqual([{ method: 'PUT', body: 'streamed' }])
    expect(time.sleeps).toEqual([])
  })

  it('honours the AbortSignal during the wait: rejects with its reason and sends nothing more', async () => {
    const server = await echoServer()
    const controller = new AbortController()
    const { sleep, entered } = stuckSleep()
    const pending = createFetch({ sleep })(server.url, { signal: controller.signal })
    await entered
    controller.abort(new Error('user left'))
    await expect(pending).rejects.toThrow('user left')
    expect(server.seen).toHaveLength(1)
  })

  it('the default sleep is a timer, cleared on abort (fake timers: nothing waits)', async () => {
    const { vi } = await import('vitest')
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    try {
      const { sleep } = await import('../src/sleep.js')
      let done = false
      const p = sleep(5_000).then(() => {
        done = true
      })
      await vi.advanceTimersByTimeAsync(4_999)
      expect(done).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      await p
      expect(done).toBe(true)
      const controller = new AbortController()
      const aborted = sleep(60_000, controller.signal)
      controller.abort(new Error('stop'))
      await expect(aborted).rejects.toThrow('stop')
      expect(vi.getTimerCount()).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })

  it('an already aborted signal: no request at all', async () => {
    const server = await echoServer()
    const time = virtualTime()
    const politeFetch = createFetch({ now: time.now, sleep: time.sleep, pace: true })
    await expect(politeFetch(server.url, { signal: AbortSignal.abort(new Error('gone')) })).rejects.toThrow()
    expect(server.seen).toHaveLength(0)
  })

  it('the fetch option: any fetch-compatible function is wrapped, looked up per call by default', async () => {
    const calls: string[] = []
    const fake = async (input: string | URL | Request) => {
      calls.push(String(input))
      return new Response(calls.length === 1 ? 'no' : 'yes', {
        status: calls.length === 1 ? 503 : 200,
        headers: { 'retry-after': '1' },
      })
    }
    const time = virtualTime()
    const res = await createFetch({ fetch: fake, now: time.now, sleep: time.sleep, random: () => 0 })(
      'https://api.test/x',
    )
    expect(await res.text()).toBe('yes')
    expect(calls).toEqual(['https://api.test/x', 'https://api.test/x'])
    expect(time.sleeps).toEqual([1_000])
  })

  it('a throwing onRetry does not break the request', async () => {
    const server = await echoServer()
    const time = virtualTime()
    const politeFetch = createFetch({
      now: time.now,
      sleep: time.sleep,
      onRetry: () => {
        throw new Error('logger down')
      },
    })
    expect((await politeFetch(server.url)).status).toBe(200)
  })

  it('a network error is not retried: it rejects as fetch does', async () => {
    const server = await plainServer(() => {})
    await server.close()
    await expect(createFetch()(server.url)).rejects.toThrow()
  })
})

// Real HTTP for the degradation tests: one connection per request (so a client can go away on its own),
// requests held in the route until the test lets them go, and a bounded wait for the server to catch up.
import http, { type IncomingHttpHeaders } from 'node:http'
import { afterEach } from 'vitest'
import type { AdapterApp, AdapterDriver, AppGates, DegradationSetup } from '../../src/types.js'

export interface Sent {
  readonly response: Promise<{ status: number; headers: IncomingHttpHeaders; body: any }>
  /** Go away: destroy the connection before the answer. */
  abort(): void
}

export function send(base: string, headers: Record<string, string> = {}, path = '/'): Sent {
  let request!: http.ClientRequest
  const response = new Promise<{ status: number; headers: IncomingHttpHeaders; body: any }>(
    (resolve, reject) => {
      request = http.get(`${base}${path}`, { headers, agent: false }, (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (chunk) => {
          text += chunk
        })
        res.on('end', () => {
          const type = String(res.headers['content-type'] ?? '')
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: type.includes('json') ? JSON.parse(text) : text,
          })
        })
      })
      request.on('error', reject)
    },
  )
  return {
    response,
    abort() {
      response.catch(() => undefined)
      request.destroy()
    },
  }
}

/** Route holds: each request waits in the route until `release()` lets the oldest go; `started` lists them by `x-id`. */
export function holds() {
  const waiting: (() => void)[] = []
  const started: string[] = []
  return {
    started,
    wait: (headers: IncomingHttpHeaders) =>
      new Promise<void>((resolve) => {
        started.push(String(headers['x-id'] ?? ''))
        waiting.push(resolve)
      }),
    release() {
      waiting.shift()?.()
    },
    releaseAll() {
      for (const resolve of waiting.splice(0)) resolve()
    },
  }
}

/**
 * The apps of one describe block on `driver`: `start` builds one with `degradation` whose one route holds its
 * requests (`held`); after each test every held request is let go and the app closed. Call inside a `describe`.
 */
export function heldApps(driver: AdapterDriver) {
  const held = holds()
  let app: AdapterApp | undefined
  afterEach(async () => {
    held.releaseAll()
    held.started.length = 0
    await app?.close()
    app = undefined
  })
  return {
    held,
    async start(degradation: DegradationSetup) {
      app = await driver.createApp({ degradation, routes: [{ path: '/', wait: held.wait }] })
      return { base: await app.listen(), gates: app.gates as Required<AppGates> }
    },
  }
}

/** Wait until `condition` holds, checking each millisecond, for at most 5 s (the server works in the same process). */
export async function until(condition: () => boolean, what = 'the condition'): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  throw new Error(`gave up waiting for ${what}`)
}

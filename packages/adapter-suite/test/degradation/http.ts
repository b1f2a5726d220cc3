// Real HTTP for the degradation tests: one connection per request (so a client can go away on its own),
// requests held in the route until the test lets them go, and a bounded wait for the server to catch up.
import http, { type IncomingHttpHeaders } from 'node:http'

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

/** Wait until `condition` holds, checking each millisecond, for at most 5 s (the server works in the same process). */
export async function until(condition: () => boolean, what = 'the condition'): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (condition()) return
    await new Promise((resolve) => setTimeout(resolve, 1))
  }
  throw new Error(`gave up waiting for ${what}`)
}

/**
 * A small HTTP/1.1 load generator on `node:net`, for the http suite: keep-alive connections, one request in
 * flight per connection, responses parsed just enough to find where each ends (status line, Content-Length
 * or chunked body). Much cheaper per request than a general client, so that on a 2-core machine the load
 * generator leaves as much CPU as it can to the server under test. Also the pipelined check: N requests
 * written on one socket at once, then N status lines read back.
 */
import net from 'node:net'
import { performance } from 'node:perf_hooks'

const HEADER_END = Buffer.from('\r\n\r\n')
const CRLF = Buffer.from('\r\n')

/** The bytes of one keep-alive GET. */
export function getRequest(port, path = '/') {
  return Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUser-Agent: floodgate-bench\r\n\r\n`)
}

/**
 * Where the response starting at `buf[0]` ends: `{ status, end, close }`, or undefined when `buf` does not
 * hold all of it yet. Throws on something that is not an HTTP/1.1 response.
 */
export function parseResponse(buf) {
  const headerEnd = buf.indexOf(HEADER_END)
  if (headerEnd < 0) return undefined
  if (buf[0] !== 0x48 /* H */ || buf[8] !== 0x20) {
    throw new Error(`not an HTTP response: ${JSON.stringify(buf.latin1Slice(0, Math.min(buf.length, 40)))}`)
  }
  const status = (buf[9] - 48) * 100 + (buf[10] - 48) * 10 + (buf[11] - 48)
  const head = buf.latin1Slice(0, headerEnd).toLowerCase()
  const close = /\r\nconnection:\s*close/.test(head)
  const bodyStart = headerEnd + 4
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head)
  if (length) {
    const end = bodyStart + Number(length[1])
    return end <= buf.length ? { status, end, close } : undefined
  }
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) {
    let pos = bodyStart
    for (;;) {
      const lineEnd = buf.indexOf(CRLF, pos)
      if (lineEnd < 0) return undefined
      const size = Number.parseInt(buf.latin1Slice(pos, lineEnd), 16)
      if (!Number.isFinite(size)) throw new Error('bad chunk size')
      pos = lineEnd + 2 + size + 2 // the chunk and its CRLF (after the last, empty chunk: the final CRLF)
      if (pos > buf.length) return undefined
      if (size === 0) return { status, end: pos, close }
    }
  }
  if (status === 204 || status === 304 || (status >= 100 && status < 200)) {
    return { status, end: bodyStart, close }
  }
  throw new Error(`response without Content-Length or chunked body (status ${status})`)
}

/**
 * Start `connections` keep-alive connections to 127.0.0.1:`port`, each sending the next GET as soon as the
 * previous response has fully arrived. Returns a handle:
 *   - `reset()` zeroes the counters (call it when the measured window starts);
 *   - `snapshot()` reads them: responses per status, latency samples (ms), elapsed ms since `reset()`;
 *   - `stop()` stops sending, waits for the responses in flight, closes the sockets.
 * A connection the server closes is reopened (counted in `reconnects`).
 */
export function startLoad({ port, connections = 50, path = '/' }) {
  const request = getRequest(port, path)
  let running = true
  let counting = {
    statuses: {},
    responses: 0,
    latencies: [],
    reconnects: 0,
    errors: 0,
    since: performance.now(),
  }
  const sockets = new Set()
  let inFlight = 0
  let onIdle

  const open = () => {
    const socket = net.connect({ host: '127.0.0.1', port })
    socket.setNoDelay(true)
    sockets.add(socket)
    let buf = null
    let sentAt = 0
    let waiting = false
    const send = () => {
      waiting = true
      inFlight++
      sentAt = performance.now()
      socket.write(request)
    }
    const settle = () => {
      if (!waiting) return
      waiting = false
      inFlight--
      if (inFlight === 0 && !running && onIdle) onIdle()
    }
    socket.on('connect', () => {
      if (running) send()
    })
    socket.on('data', (chunk) => {
      buf = buf === null ? chunk : Buffer.concat([buf, chunk])
      for (;;) {
        let res
        try {
          res = parseResponse(buf)
        } catch (error) {
          counting.errors++
          console.error(`[http client] ${error.message}`)
          socket.destroy()
          return
        }
        if (!res) return
        const c = counting
        c.responses++
        c.statuses[res.status] = (c.statuses[res.status] ?? 0) + 1
        c.latencies.push(performance.now() - sentAt)
        buf = res.end === buf.length ? null : buf.subarray(res.end)
        settle()
        if (res.close) {
          socket.end()
          return
        }
        if (running) send()
        if (buf === null) return
      }
    })
    socket.on('error', () => {
      counting.errors++
    })
    socket.on('close', () => {
      sockets.delete(socket)
      settle()
      if (running) {
        counting.reconnects++
        open()
      }
    })
  }
  for (let i = 0; i < connections; i++) open()

  return {
    reset() {
      counting = {
        statuses: {},
        responses: 0,
        latencies: [],
        reconnects: 0,
        errors: 0,
        since: performance.now(),
      }
    },
    snapshot() {
      const c = counting
      return {
        elapsedMs: performance.now() - c.since,
        responses: c.responses,
        statuses: { ...c.statuses },
        latencies: c.latencies.slice(),
        reconnects: c.reconnects,
        errors: c.errors,
      }
    },
    async stop() {
      running = false
      if (inFlight > 0) {
        await new Promise((resolve) => {
          onIdle = resolve
          setTimeout(resolve, 5000).unref()
        })
      }
      for (const s of sockets) s.destroy()
    },
  }
}

/**
 * Write `count` GETs on one socket in a single write, then read `count` responses. Resolves with the status
 * of each, in order (fewer when the server closed the connection or `timeoutMs` passed first).
 */
export function pipelined({ port, count, path = '/', timeoutMs = 15_000 }) {
  return new Promise((resolve) => {
    const one = getRequest(port, path)
    const all = Buffer.concat(Array.from({ length: count }, () => one))
    const statuses = []
    let buf = null
    let done = false
    const socket = net.connect({ host: '127.0.0.1', port })
    const finish = (why) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve({ statuses, complete: statuses.length === count, why })
    }
    const timer = setTimeout(() => finish('timeout'), timeoutMs)
    socket.setNoDelay(true)
    socket.on('connect', () => socket.write(all))
    socket.on('data', (chunk) => {
      buf = buf === null ? chunk : Buffer.concat([buf, chunk])
      for (;;) {
        let res
        try {
          res = parseResponse(buf)
        } catch (error) {
          finish(error.message)
          return
        }
        if (!res) return
        statuses.push(res.status)
        buf = res.end === buf.length ? null : buf.subarray(res.end)
        if (statuses.length === count) {
          finish('all responses read')
          return
        }
        if (buf === null) return
      }
    })
    socket.on('error', (error) => finish(error.message))
    socket.on('close', () => finish('closed by the server'))
  })
}

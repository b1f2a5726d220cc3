// One server of the http suite and its client in one process, for counting CPU instructions per request:
//
//   node bench/suites/http/request-loop.mjs '<spec json>' <n>
//
// `spec` is what bench/suites/http/server.mjs takes (framework, limiter, store, limit). The server is built
// by the suite's own apps.mjs; one keep-alive socket sends `n` GETs one after another, after a warm-up
// (5,000 requests; REQUEST_LOOP_WARMUP sets it), each response read to its end. Under valgrind (bench/lib/instructions.mjs) the count of two runs of
// different `n` gives the instructions of one request, the client's share the same in every configuration.
//
// REQUEST_LOOP_MARKS=<k> marks the end of the warm-up and then every `k` requests (./marks.mjs): under
// `valgrind --tool=callgrind --dump-before=uv_os_getpriority` each mark dumps the instructions since the one
// before, so one run gives the count of each slice of `k` requests, start-up, warm-up and shutdown left out
// (bench/suites/metrics/http-count.mjs; REQUEST_LOOP_INSTRUMENT=1 counts nothing before the first mark). The
// process's CPU time and heap at each mark are then written to stdout as JSON at the end.
//
// REQUEST_LOOP_COLLECT=<k> (with `node --expose-gc`) runs a full collection `k` requests before the end of the
// warm-up. A server's first full collection comes when its heap first outgrows V8's starting limit, a number
// of requests after start-up that depends on how big the app's heap is (a Floodgate Fastify server's came about
// 3,000 requests into the 8,000 counted after a warm-up of 5,000, 580 instructions on each of them; the peer's
// heap, smaller, had none in 25,000): collected here, it falls in the warm-up for every configuration. The pages
// it leaves to sweep are swept during the counted requests, more of them the bigger the heap (on Fastify,
// Floodgate's server 465 instructions per request more than the peer's). The `k` requests after it re-optimize
// what it threw away.
import net from 'node:net'
import { startServer } from './apps.mjs'
import { getRequest, parseResponse } from './client.mjs'
import { cpuAtMarks, heapAtMarks, mark } from './marks.mjs'

const WARMUP = Number(process.env.REQUEST_LOOP_WARMUP ?? 5_000)
const MARKS = Number(process.env.REQUEST_LOOP_MARKS ?? 0)
const COLLECT = Number(process.env.REQUEST_LOOP_COLLECT ?? 0)
if (COLLECT > 0 && typeof globalThis.gc !== 'function')
  throw new Error('REQUEST_LOOP_COLLECT needs node --expose-gc')
if (COLLECT > WARMUP)
  throw new Error(`REQUEST_LOOP_COLLECT (${COLLECT}) must be at most the warm-up (${WARMUP})`)
const spec = JSON.parse(process.argv[2])
const count = Number(process.argv[3])
const server = await startServer(spec)
const request = getRequest(server.port)

function connect() {
  return new Promise((resolve, reject) => {
    const socket = net.connect(server.port, '127.0.0.1')
    socket.once('connect', () => resolve(socket)).once('error', reject)
    socket.setNoDelay(true)
  })
}

// A server closes a keep-alive connection left idle for 5 s (Node's keepAliveTimeout), which a mark can take
// under valgrind: the request is then sent again on a new connection (`reconnects`).
let socket
let reconnects = 0
const statuses = new Map()
await new Promise((resolve, reject) => {
  let left = WARMUP + count
  let buffered = Buffer.alloc(0)
  const open = async () => {
    socket = await connect()
    buffered = Buffer.alloc(0)
    socket.on('error', () => {})
    socket.on('close', () => {
      if (left > 0) {
        reconnects++
        open().catch(reject)
      }
    })
    socket.on('data', (chunk) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk])
      const response = parseResponse(buffered)
      if (response === undefined) return
      buffered = buffered.subarray(response.end)
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
      --left
      if (COLLECT > 0 && left === count + COLLECT) globalThis.gc()
      if (MARKS > 0 && left <= count && (count - left) % MARKS === 0) mark()
      if (left === 0) resolve()
      else socket.write(request)
    })
    socket.write(request)
  }
  if (MARKS > 0 && WARMUP === 0) mark()
  open().catch(reject)
})
socket.destroy()
await server.close()
if (process.env.REQUEST_LOOP_STATUSES) console.error(JSON.stringify([...statuses]))
if (MARKS > 0)
  console.log(JSON.stringify({ cpuAtMarks, heapAtMarks, reconnects, statuses: Object.fromEntries(statuses) }))
process.exit(0)

// One server of the http suite and its client in one process, for counting CPU instructions per request:
//
//   node bench/suites/http/request-loop.mjs '<spec json>' <n>
//
// `spec` is what bench/suites/http/server.mjs takes (framework, limiter, store, limit). The server is built
// by the suite's own apps.mjs; one keep-alive socket sends `n` GETs one after another, after a warm-up
// (5,000 requests; REQUEST_LOOP_WARMUP sets it), each response read to its end. Under valgrind (bench/lib/instructions.mjs) the count of two runs of
// different `n` gives the instructions of one request, the client's share the same in every configuration.
import net from 'node:net'
import { startServer } from './apps.mjs'
import { getRequest, parseResponse } from './client.mjs'

const WARMUP = Number(process.env.REQUEST_LOOP_WARMUP ?? 5_000)
const spec = JSON.parse(process.argv[2])
const count = Number(process.argv[3])
const server = await startServer(spec)
const socket = net.connect(server.port, '127.0.0.1')
await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject))
socket.setNoDelay(true)
const request = getRequest(server.port)

const statuses = new Map()
await new Promise((resolve, reject) => {
  let left = WARMUP + count
  let buffered = Buffer.alloc(0)
  socket.on('error', reject)
  socket.on('data', (chunk) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk])
    const response = parseResponse(buffered)
    if (response === undefined) return
    buffered = buffered.subarray(response.end)
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    if (--left === 0) resolve()
    else socket.write(request)
  })
  socket.write(request)
})
socket.destroy()
await server.close()
if (process.env.REQUEST_LOOP_STATUSES) console.error(JSON.stringify([...statuses]))
process.exit(0)

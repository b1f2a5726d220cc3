// One server under overload, in its own process: Express with an app of known capacity (`workers` requests
// worked on at once, `serviceMs` each on average, the rest waiting in the app's own first-in first-out line, as a
// connection pool or a thread pool makes them wait), behind nothing, Floodgate's priorityQueue, or its
// loadShedder. Reports its memory over IPC.
//   node server.mjs '{"kind":"bare"|"queue"|"shedder","workers":8,"serviceMs":10}'
import { loadShedder, priorityQueue } from '@floodgate/express'
import express from 'express'

const spec = JSON.parse(process.argv[2])
const { workers, serviceMs } = spec

/** Seeded PRNG (mulberry32): every server draws the same service times. */
let seed = 12345
const random = () => {
  seed = (seed + 0x6d2b79f5) >>> 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/**
 * The app's capacity: `workers` at once, each request holding one for a service time drawn evenly from
 * `serviceMs` +- 25% (a constant one would keep the workers in lockstep, freeing all at once).
 */
let busy = 0
const line = []
const work = () =>
  new Promise((resolve) => {
    const start = () => {
      busy++
      setTimeout(
        () => {
          busy--
          line.shift()?.()
          resolve()
        },
        serviceMs * (0.75 + 0.5 * random()),
      )
    }
    if (busy < workers) start()
    else line.push(start)
  })

const premium = (req) => req.headers['x-plan'] === 'premium'
const app = express()
let queue
if (spec.kind === 'queue') {
  const middleware = priorityQueue({
    concurrency: workers,
    priority: (req) => (premium(req) ? 'premium' : 'standard'),
    queues: { premium: { capacity: 500 }, standard: { capacity: 100 } },
    maxWait: '1s',
  })
  queue = middleware.queue
  app.use(middleware)
}
if (spec.kind === 'shedder') {
  app.use(
    loadShedder({
      priority: (req) => (premium(req) ? 'critical' : 'normal'),
      classes: ['critical', 'normal'],
      maxInFlight: workers,
      reserve: { critical: 0.4 },
    }),
  )
}
app.get('/', async (_req, res) => {
  await work()
  res.json({ ok: true })
})

let peakRss = 0
let peakHeap = 0
let peakLine = 0
let peakQueued = 0
const sample = setInterval(() => {
  const m = process.memoryUsage()
  peakRss = Math.max(peakRss, m.rss)
  peakHeap = Math.max(peakHeap, m.heapUsed)
  peakLine = Math.max(peakLine, line.length)
  if (queue) {
    const { queued } = queue.stats()
    peakQueued = Math.max(peakQueued, queued.premium + queued.standard)
  }
}, 50)

const server = app.listen(0, '127.0.0.1', () => {
  server.keepAliveTimeout = 30_000
  process.send({ type: 'ready', port: server.address().port })
})
process.on('message', (message) => {
  if (message?.type === 'memory') {
    const m = process.memoryUsage()
    const cpu = process.cpuUsage()
    process.send({
      type: 'memory',
      id: message.id,
      rss: m.rss,
      heapUsed: m.heapUsed,
      peakRss,
      peakHeap,
      peakLine,
      peakQueued,
      cpuMs: (cpu.user + cpu.system) / 1000,
    })
  } else if (message?.type === 'reset-peaks') {
    peakRss = peakHeap = peakLine = peakQueued = 0
    process.send({ type: 'reset-peaks', id: message.id })
  } else if (message?.type === 'stop') {
    clearInterval(sample)
    server.closeAllConnections()
    server.close(() => process.exit(0))
  }
})
process.on('disconnect', () => process.exit(0))

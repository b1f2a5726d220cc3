#!/usr/bin/env node
// The picture in docs/degradation.md: one burst against one server, four ways (reject, queue with a bound,
// priority queue, load shedder), computed on a virtual clock by the real core components: no number in it
// is drawn by hand. `node packages/simulator/scripts/degradation-figures.mjs` writes it to docs/images/; a
// test fails when the checked-in picture differs from what this file renders.

import fs from 'node:fs'
import { fileURLToPath } from 'node:url'
import { leakyBucket, step } from '@floodgate/core'
import { createLoadShedder, createPriorityQueue } from '@floodgate/core/internal'
import { renderChart } from '@floodgate/simulator'

/** The burst: 120 requests in the first second, one every 25/3 ms, every fifth one premium. */
const BURST = Array.from({ length: 120 }, (_, i) => ({
  at: Math.round((i * 1000) / 120),
  premium: i % 5 === 0,
}))
/** The server: 10 requests at once, 200 ms each (50 requests a second). */
const SERVER = { concurrency: 10, serviceMs: 200 }
const TICK = 100
const END = 3000
const TICKS = END / TICK

/** A virtual clock with timers: `run` fires each timer at its time, settling promises in between. */
function virtualTime() {
  let now = 0
  let seq = 0
  const due = []
  return {
    clock: () => now,
    timers: {
      set(fn, ms) {
        due.push({ id: ++seq, at: now + Math.max(0, ms), fn })
        return seq
      },
      clear(id) {
        const i = due.findIndex((d) => d.id === id)
        if (i >= 0) due.splice(i, 1)
      },
    },
    async run(until) {
      const settle = async () => {
        for (let i = 0; i < 5; i++) await Promise.resolve()
      }
      for (;;) {
        due.sort((a, b) => a.at - b.at || a.id - b.id)
        const next = due[0]
        if (!next || next.at > until) break
        due.shift()
        now = next.at
        next.fn()
        await settle()
      }
      now = until
    },
  }
}

/** Counts per tick of each kind of event. */
function counter() {
  const counts = {}
  return {
    add(kind, at) {
      counts[kind] ??= new Array(TICKS).fill(0)
      const tick = Math.floor(at / TICK)
      if (tick < TICKS) counts[kind][tick]++
    },
    get: (kind) => counts[kind] ?? new Array(TICKS).fill(0),
  }
}

/** A leaky bucket at the server's rate: police refuses the overflow, shape delays (up to maxDelay). */
function bucketRun(mode) {
  const algorithm = leakyBucket({
    capacity: SERVER.concurrency,
    leakRate: SERVER.concurrency,
    interval: SERVER.serviceMs,
    mode,
    ...(mode === 'shape' ? { maxDelay: '1s', capacity: 100 } : {}),
  })
  const c = counter()
  let state
  for (const r of BURST) {
    const { state: next, decision } = step(algorithm, state, r.at)
    state = next
    if (decision.allowed) c.add(r.premium ? 'premium' : 'standard', r.at + decision.delayMs)
    else c.add('429', r.at)
  }
  return c
}

/** A gate (priorityQueue or loadShedder) in front of the server, on virtual time. */
async function gateRun(make) {
  const time = virtualTime()
  const gate = make(time)
  const c = counter()
  for (const r of BURST) {
    time.timers.set(() => {
      const entry = gate.enter({
        method: 'GET',
        path: '/',
        route: '/',
        headers: {},
        ip: '203.0.113.1',
        native: r,
      })
      Promise.resolve(entry.outcome).then((o) => {
        if (o.kind === 'pass') {
          c.add(r.premium ? 'premium' : 'standard', time.clock())
          time.timers.set(entry.leave, SERVER.serviceMs)
        } else if (o.kind === 'answer') c.add(String(o.status), time.clock())
      })
    }, r.at)
  }
  await time.run(END + 5000)
  gate.close()
  return c
}

const plan = (req) => (req.premium ? 'premium' : 'standard')

export async function degradationFigures() {
  const police = bucketRun('police')
  const shape = bucketRun('shape')
  const queue = await gateRun((time) =>
    createPriorityQueue({
      concurrency: SERVER.concurrency,
      queues: { premium: { capacity: 50 }, standard: { capacity: 20 } },
      priority: plan,
      maxWait: '1s',
      clock: time.clock,
      timers: time.timers,
    }),
  )
  const shedder = await gateRun((time) =>
    createLoadShedder({
      classes: ['premium', 'standard'],
      priority: plan,
      maxInFlight: SERVER.concurrency,
      reserve: { premium: 0.3 },
      clock: time.clock,
    }),
  )
  const x = Array.from({ length: TICKS }, (_, i) => (i * TICK) / 1000)
  const bars = (label, y, style) => ({ label, kind: 'bars', x, y, barWidth: TICK / 1000, style })
  const panel = (title, c) => ({
    title,
    y: { label: 'requests / 100 ms', max: 14 },
    height: 120,
    stacked: true,
    series: [
      bars('served: premium', c.get('premium'), 0),
      bars('served: standard', c.get('standard'), 2),
      bars('refused 429', c.get('429'), 1),
      bars('refused 503', c.get('503'), 3),
    ],
  })
  const svg = renderChart({
    id: 'degradation',
    title: 'One burst, four answers',
    subtitle:
      '120 requests in 1 s (every fifth premium) against a server of 10 at once, 200 ms each (50/s): when each is served or refused',
    width: 760,
    x: { label: 'time (s)', min: 0, max: END / 1000, marks: [{ x: 1, label: 'burst ends' }] },
    panels: [
      panel('Reject: leakyBucket police, capacity 10 at 50/s: the overflow refused at once', police),
      panel('Queue, bounded: leakyBucket shape, maxDelay 1s: served at 50/s, the rest refused', shape),
      panel('priorityQueue: concurrency 10, premium 50 / standard 20 places, maxWait 1s', queue),
      panel('loadShedder: maxInFlight 10, reserve { premium: 0.3 }: never waits', shedder),
    ],
  })
  return [{ file: 'degradation-burst.svg', svg }]
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  for (const { file, svg } of await degradationFigures()) {
    const target = fileURLToPath(new URL(`../../../docs/images/${file}`, import.meta.url))
    fs.writeFileSync(target, `${svg}\n`)
    console.error(`wrote docs/images/${file}`)
  }
}

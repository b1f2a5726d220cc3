// Shared by the Redis queue's tests: a queue with a name of its own per test, and a worker whose jobs the
// test lets finish one by one.
import type { Job, RedisQueue } from '../src/index.js'

let queues = 0
/** A queue name unique to this test process and test. */
export const queueName = (what: string) =>
  `fgtest-${what}-${process.pid}-${Date.now().toString(36)}-${queues++}`

/** A handler that records the jobs it starts and holds each until `release()`; `fail` makes the next throw. */
export function heldHandler() {
  const started: Job[] = []
  const waiting: { resolve: (v: string) => void; reject: (e: Error) => void }[] = []
  return {
    started,
    handler: (job: Job) =>
      new Promise<string>((resolve, reject) => {
        started.push(job)
        waiting.push({ resolve, reject })
      }),
    release(result = 'ok') {
      waiting.shift()?.resolve(result)
    },
    fail(message = 'boom') {
      waiting.shift()?.reject(new Error(message))
    },
  }
}

/** Wait until `condition` holds (Redis answers in its own time), for at most 10 s. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what = 'the condition',
): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (await condition()) return
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  throw new Error(`gave up waiting for ${what}`)
}

/** The two lanes of the premium / standard picture: premium 500, standard 100. */
export const SEED_LANES = { premium: { capacity: 500 }, standard: { capacity: 100 } }

/** Enqueue `n` jobs, one after another, and return their ids. */
export async function fill(queue: RedisQueue, lane: string, n: number, tag = lane): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const r = await queue.enqueue(lane, `${tag}-${i}`)
    if (!r.accepted) throw new Error(`expected ${lane} to take job ${i}, got ${r.reason}`)
    ids.push(r.id)
  }
  return ids
}

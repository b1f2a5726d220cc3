import { execFileSync } from 'node:child_process'
import { closeSync, openSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'

/** Whether valgrind is on this machine (the instruction counts need it). */
export function hasValgrind() {
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/**
 * The flags of a node process counted under valgrind: one thread, and collections and seeds that do not vary from
 * run to run. Fixed seeds: V8 picks its string hash seed at random in each process, and where keys collide in a Map
 * decides how many keys a lookup compares; with a seed of its own each count would move by a hundred
 * instructions or more from run to run. No memory reducer: it starts full collections when the allocation rate
 * per second of wall time looks low, as every process does under valgrind, so it collected more the slower the
 * machine was (the SyncedStore's loop counted 2,611 to 2,739 instructions per decision with it, 1,650 without;
 * the MemoryStore's 1,667 and 1,670).
 */
export const COUNTED_NODE_FLAGS = [
  '--single-threaded',
  '--predictable-gc-schedule',
  '--hash-seed=1',
  '--random-seed=1',
  '--no-memory-reducer',
]

/** Run `valgrind <args>` (a counted process); what it wrote to stderr is shown if it fails. */
export function runCounted(args, { env = process.env } = {}) {
  const log = path.join(
    os.tmpdir(),
    `fg-count-stderr-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  )
  const fd = openSync(log, 'w')
  try {
    execFileSync('valgrind', args, { stdio: ['ignore', 'ignore', fd], env })
  } catch (error) {
    throw new Error(`${error.message}\n${readFileSync(log, 'utf8').slice(-4000)}`)
  } finally {
    closeSync(fd)
    rmSync(log, { force: true })
  }
}

function instructions(script, args) {
  const out = path.join(
    os.tmpdir(),
    `fg-callgrind-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`,
  )
  try {
    runCounted([
      '--tool=callgrind',
      `--callgrind-out-file=${out}`,
      process.execPath,
      ...COUNTED_NODE_FLAGS,
      script,
      ...args,
    ])
    const summary = /^summary: (\d+)/m.exec(readFileSync(out, 'utf8'))
    if (!summary) throw new Error(`no callgrind summary for ${script} ${args.join(' ')}`)
    return Number(summary[1])
  } finally {
    rmSync(out, { force: true })
  }
}

/**
 * CPU instructions per operation, counted by valgrind's callgrind (deterministic: the same count whatever
 * else the machine is doing). `script` runs `n` operations when given `[...args, String(n)]`; the count is
 * the difference between two runs divided by the difference in operations, so start-up and warm-up cancel.
 */
export function instructionsPerOperation(script, args, { small = 20_000, large = 40_000 } = {}) {
  const a = instructions(script, [...args, String(small)])
  const b = instructions(script, [...args, String(large)])
  return (b - a) / (large - small)
}

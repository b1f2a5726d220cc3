/**
 * A redis-server of a suite's own, and what it did. A suite that starts one gets a server nobody else talks
 * to, so its CPU time and its command counts are that suite's alone; `readRedisUsage()` reads them, and
 * `usageBetween()` turns two readings into what happened in between.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

/** Whether a Redis answers PING on 127.0.0.1:`port` (one raw RESP exchange, no client library). */
function answersPing(port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port })
    const done = (ok) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(500, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (chunk) => done(chunk.toString('latin1').startsWith('+PONG')))
  })
}

/**
 * Start `redis-server` on a free port of 127.0.0.1, without persistence (no RDB, no AOF, a temporary
 * directory), and wait until it answers PING. Resolves with `{ host, port, pid, stop() }` (`stop()` ends it
 * by its PID, SIGTERM then SIGKILL, and removes the directory), or with undefined when no redis-server could
 * be started (not installed, or it exited). `args`: more of redis-server's options (`['--hz', '1']`).
 */
export async function startPrivateRedis({ readyTimeoutMs = 10_000, runUnder = [], args: extra = [] } = {}) {
  const port = await freePort()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'fg-bench-redis-'))
  const removeDir = () => fs.rmSync(dir, { recursive: true, force: true })
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...extra]
  // `runUnder`: a command the server runs under (valgrind and its options), which ends when it does.
  const [command, ...prefix] = [...runUnder, 'redis-server']
  const child = spawn(command, [...prefix, ...args, '--dir', dir], { stdio: 'ignore' })
  let gone = false
  const exited = new Promise((resolve) =>
    child.once('exit', () => {
      gone = true
      resolve()
    }),
  )
  child.once('error', () => {
    gone = true
  })
  const deadline = Date.now() + readyTimeoutMs
  let ready = false
  while (!gone && !ready && Date.now() < deadline) {
    ready = await answersPing(port)
    if (!ready) await new Promise((resolve) => setTimeout(resolve, 50))
  }
  if (!ready || gone) {
    if (!gone) child.kill('SIGKILL')
    removeDir()
    return undefined
  }
  const watchdog = endWithThisProcess(child.pid)
  return {
    host: '127.0.0.1',
    port,
    pid: child.pid,
    async stop() {
      watchdog.release()
      if (!gone) {
        child.kill('SIGTERM')
        const killer = setTimeout(() => child.kill('SIGKILL'), 3000)
        await exited
        clearTimeout(killer)
      }
      removeDir()
    },
  }
}

/**
 * A small `sh` that ends process `pid` (SIGTERM) once this process is gone, however it went: it waits for the
 * end of a pipe only this process writes to. So a suite killed outright (run.mjs's time cap) leaves no
 * redis-server behind. `release()` dismisses it without touching `pid`.
 */
function endWithThisProcess(pid) {
  const watchdog = spawn('sh', ['-c', 'cat > /dev/null; kill "$1" 2> /dev/null', 'sh', String(pid)], {
    stdio: ['pipe', 'ignore', 'ignore'],
  })
  watchdog.unref()
  watchdog.stdin.unref?.()
  return {
    release() {
      watchdog.kill('SIGKILL')
      watchdog.stdin.destroy()
    },
  }
}

/**
 * One reading of a Redis's own counters, from a single `INFO cpu commandstats` sent with `client.call` (an
 * ioredis client): the CPU time of the whole server process (`used_cpu_user` + `used_cpu_sys`, in µs) and,
 * per command, its calls and the µs Redis spent executing it.
 */
export async function readRedisUsage(client) {
  const info = await client.call('INFO', 'cpu', 'commandstats')
  const field = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? Number.NaN)
  const commands = {}
  for (const line of info.split('\r\n')) {
    if (!line.startsWith('cmdstat_')) continue
    const [name, stats] = line.slice('cmdstat_'.length).split(':')
    const value = (key) => Number(new RegExp(`(?:^|,)${key}=([\\d.]+)`).exec(stats)?.[1] ?? 0)
    commands[name] = { calls: value('calls'), usec: value('usec') }
  }
  return { cpuUs: Math.round((field('used_cpu_user') + field('used_cpu_sys')) * 1e6), commands }
}

/**
 * What Redis did between two readings: CPU µs, commands (in all and per command name, those run by scripts
 * included) and µs inside commands, leaving out the commands of the measuring itself (`INFO` by default).
 */
export function usageBetween(before, after, { leaveOut = ['info'] } = {}) {
  let commands = 0
  let commandUs = 0
  const calls = {}
  for (const [name, now] of Object.entries(after.commands)) {
    if (leaveOut.includes(name)) continue
    const n = now.calls - (before.commands[name]?.calls ?? 0)
    if (n > 0) calls[name] = n
    commands += n
    commandUs += now.usec - (before.commands[name]?.usec ?? 0)
  }
  return { cpuUs: after.cpuUs - before.cpuUs, commands, commandUs, calls }
}

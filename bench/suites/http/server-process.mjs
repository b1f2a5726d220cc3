/**
 * A server under test in its own process: bench/suites/http/server.mjs started with `fork`, spoken to over
 * IPC (its CPU time, its CPU profiler, stop).
 */
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url))

/**
 * Fork one server; resolves, once it listens, with `{ port, cpu(), profile(file), stop() }`. `cpu()` reads the
 * process's cumulative `process.cpuUsage()`; `stop()` resolves with how it exited.
 */
export function spawnServer(spec, { execArgv = [] } = {}) {
  return new Promise((resolve, reject) => {
    const child = fork(SERVER, [JSON.stringify(spec)], {
      execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    let nextId = 0
    const pending = new Map()
    /** Send `message` with a fresh id; resolves with the server's answer to that id. */
    const ask = (message) => {
      const id = nextId++
      return new Promise((res, rej) => {
        pending.set(id, { resolve: res, reject: rej })
        child.send({ ...message, id })
      })
    }
    const exited = new Promise((res) => child.once('exit', (code, signal) => res({ code, signal })))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server ${JSON.stringify(spec)} not ready after 30 s`))
    }, 30_000)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      for (const p of pending.values()) p.reject(new Error(`server exited (${signal ?? code})`))
      reject(new Error(`server ${JSON.stringify(spec)} exited before it was ready (${signal ?? code})`))
    })
    child.on('message', (message) => {
      if (message?.type === 'ready') {
        clearTimeout(timer)
        resolve({
          port: message.port,
          async cpu() {
            const { user, system } = await ask({ type: 'cpu' })
            return { cpuUs: user + system, user, system }
          },
          /** Start (`file` undefined) or stop the server's CPU profiler, writing the profile to `file`. */
          profile(file) {
            return ask(file ? { type: 'profile-stop', file } : { type: 'profile-start' })
          },
          async stop() {
            if (child.connected) child.send({ type: 'stop' })
            const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
            const outcome = await exited
            clearTimeout(killer)
            return outcome
          },
        })
      } else if (message?.type === 'cpu' || message?.type === 'profile') {
        const p = pending.get(message.id)
        pending.delete(message.id)
        p?.resolve(message)
      }
    })
  })
}

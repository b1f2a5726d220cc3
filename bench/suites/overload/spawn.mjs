// A server under test in its own process (server.mjs, forked), spoken to over IPC: its memory, stop.
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'

const SERVER = fileURLToPath(new URL('./server.mjs', import.meta.url))

/** Fork one server; resolves once it listens with `{ port, memory(), resetPeaks(), stop() }`. */
export function spawnServer(spec) {
  return new Promise((resolve, reject) => {
    const child = fork(SERVER, [JSON.stringify(spec)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] })
    let nextId = 0
    const pending = new Map()
    const ask = (type) =>
      new Promise((res) => {
        const id = nextId++
        pending.set(id, res)
        child.send({ type, id })
      })
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`server ${spec.kind} not ready after 30 s`))
    }, 30_000)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`server ${spec.kind} exited (${signal ?? code})`))
    })
    child.on('message', (message) => {
      if (message?.type === 'ready') {
        clearTimeout(timer)
        resolve({
          port: message.port,
          memory: () => ask('memory'),
          resetPeaks: () => ask('reset-peaks'),
          stop: () =>
            new Promise((res) => {
              const killer = setTimeout(() => child.kill('SIGKILL'), 10_000)
              child.once('exit', () => {
                clearTimeout(killer)
                res()
              })
              if (child.connected) child.send({ type: 'stop' })
              else child.kill('SIGKILL')
            }),
        })
        return
      }
      const done = pending.get(message?.id)
      if (done) {
        pending.delete(message.id)
        done(message)
      }
    })
  })
}

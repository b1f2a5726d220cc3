// One server under test, in its own process, started by bench/suites/http.mjs with `child_process.fork`:
//
//   node bench/suites/http/server.mjs '{"framework":"express","limiter":"floodgate","store":"memory",...}'
//
// It builds the app (bench/suites/http/apps.mjs), listens on 127.0.0.1 (an ephemeral port) and talks to the
// parent over IPC:
//   -> { type: 'ready', port }                      once listening
//   <- { type: 'cpu', id }  -> { type: 'cpu', id, user, system, at }
//                                                   cumulative process.cpuUsage() (µs) and hrtime (ns)
//   <- { type: 'profile-start', id } / { type: 'profile-stop', id, file }
//                           -> the V8 CPU profiler (node:inspector, the profiler `node --cpu-prof` uses)
//                              over just that window; the .cpuprofile is written to `file`
//   <- { type: 'stop' }     -> closes the server and its Redis clients, exits 0

import fs from 'node:fs'
import { Session } from 'node:inspector/promises'
import { startServer } from './apps.mjs'

const spec = JSON.parse(process.argv[2])
let session

try {
  const server = await startServer(spec)
  process.on('message', async (message) => {
    if (message?.type === 'cpu') {
      const { user, system } = process.cpuUsage()
      process.send({ type: 'cpu', id: message.id, user, system, at: String(process.hrtime.bigint()) })
    } else if (message?.type === 'profile-start') {
      session = new Session()
      session.connect()
      await session.post('Profiler.enable')
      await session.post('Profiler.setSamplingInterval', { interval: 200 })
      await session.post('Profiler.start')
      process.send({ type: 'profile', id: message.id })
    } else if (message?.type === 'profile-stop') {
      const { profile } = await session.post('Profiler.stop')
      session.disconnect()
      fs.writeFileSync(message.file, JSON.stringify(profile))
      process.send({ type: 'profile', id: message.id })
    } else if (message?.type === 'stop') {
      await server.close()
      process.disconnect?.()
      process.exit(0)
    }
  })
  process.on('disconnect', () => process.exit(0))
  process.send({ type: 'ready', port: server.port })
} catch (error) {
  console.error(`[http server ${spec.framework}/${spec.limiter}/${spec.store}] ${error?.stack ?? error}`)
  process.exit(1)
}

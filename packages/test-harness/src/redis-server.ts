import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { serverProcess, waitFor } from './child-processes.js'
import { freePort } from './free-port.js'
import { HOW_TO_GET_REDIS, pingRedis } from './shared-redis.js'

/** A `redis-server` this harness started, on its own port and temp dir. */
export interface RedisServer {
  readonly host: string
  readonly port: number
  readonly url: string
  /** The PID of the running process (changes on restart). */
  readonly pid: number
  /** Kill the process by PID (SIGKILL by default, as a crash) and wait for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>
  /** Start it again on the same port (after a kill) and wait until it answers. */
  restart(): Promise<void>
  /** Freeze (SIGSTOP) or thaw (SIGCONT) the process: a server that accepts connections but never answers. */
  pause(): void
  resume(): void
  /** Stop it (SIGTERM, then SIGKILL) and remove its temp dir. */
  stop(): Promise<void>
}

/**
 * Start a `redis-server` on a free port (no persistence), wait until it answers PING.
 *
 * @example const redis = await startRedis(); const client = new Redis(redis.url); ...; await redis.stop()
 */
export async function startRedis(options: { args?: string[]; port?: number } = {}): Promise<RedisServer> {
  const dir = mkdtempSync(join(tmpdir(), 'floodgate-redis-'))
  const port = options.port ?? (await freePort())
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    ...(options.args ?? []),
  ]
  const launch = async () => {
    const child = spawn('redis-server', args, { stdio: 'ignore' })
    const failed = new Promise<never>((_, reject) => {
      child.once('error', (error) =>
        reject(new Error(`could not start redis-server: ${error.message}. ${HOW_TO_GET_REDIS}`)),
      )
      child.once('exit', (code) =>
        reject(new Error(`redis-server on port ${port} exited early (code ${code})`)),
      )
    })
    failed.catch(() => {})
    await Promise.race([failed, waitFor(`redis-server on port ${port}`, () => pingRedis(port))])
    return child
  }
  const server = await serverProcess({ launch, stopSignal: 'SIGTERM', graceMs: 3000 })
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return server.pid
    },
    kill: server.kill,
    restart: server.restart,
    pause() {
      process.kill(server.pid, 'SIGSTOP')
    },
    resume() {
      process.kill(server.pid, 'SIGCONT')
    },
    async stop() {
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

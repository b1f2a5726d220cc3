import { type ChildProcess, execFile, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** Where the shared Redis is expected, as the CI script starts it. */
export const SHARED_REDIS = { host: '127.0.0.1', port: 6379 } as const

const HOW_TO_GET_REDIS =
  'Install it (`apt-get install redis-server`, or `brew install redis`) and start it ' +
  '(`redis-server --daemonize yes --save "" --appendonly no`).'

/** One RESP command over a fresh connection; resolves with the raw reply text. */
function command(port: number, host: string, args: string[], timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host })
    let reply = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no reply from ${host}:${port} within ${timeoutMs} ms`))
    }, timeoutMs)
    socket.setEncoding('utf8')
    socket.on('connect', () => {
      socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`)
    })
    socket.on('data', (chunk) => {
      reply += chunk
      if (reply.endsWith('\r\n')) {
        clearTimeout(timer)
        socket.end()
        resolve(reply)
      }
    })
    socket.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
  })
}

/** Whether a Redis answers PING at `host:port`. */
export async function pingRedis(port: number, host = '127.0.0.1'): Promise<boolean> {
  try {
    return (await command(port, host, ['PING'])).startsWith('+PONG')
  } catch {
    return false
  }
}

/**
 * Check that the shared Redis (127.0.0.1:6379) is up, or throw an error that says how to get one. Tests
 * that need it call this in `beforeAll`: they fail, never skip silently.
 */
export async function requireSharedRedis(): Promise<{ host: string; port: number; url: string }> {
  const { host, port } = SHARED_REDIS
  if (!(await pingRedis(port, host))) {
    throw new Error(
      `These tests need a Redis at ${host}:${port}, and none answered PING. ${HOW_TO_GET_REDIS}`,
    )
  }
  return { host, port, url: `redis://${host}:${port}` }
}

/** A free TCP port on 127.0.0.1 (free when asked; the caller binds it soon after). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

const children = new Set<ChildProcess>()
let exitHookInstalled = false
function track(child: ChildProcess): void {
  children.add(child)
  child.once('exit', () => children.delete(child))
  if (exitHookInstalled) return
  exitHookInstalled = true
  // Never leave a redis-server behind, even when a test run is cut short.
  process.once('exit', () => {
    for (const c of children) if (c.pid !== undefined) c.kill('SIGKILL')
  })
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

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
  let child: ChildProcess
  const launch = async () => {
    child = spawn('redis-server', args, { stdio: 'ignore' })
    track(child)
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
  }
  await launch()
  return {
    host: '127.0.0.1',
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child.pid!
    },
    async kill(signal = 'SIGKILL') {
      const c = child
      if (c.pid !== undefined) process.kill(c.pid, signal)
      await exited(c)
    },
    async restart() {
      await exited(child)
      await launch()
    },
    pause() {
      process.kill(child.pid!, 'SIGSTOP')
    },
    resume() {
      process.kill(child.pid!, 'SIGCONT')
    },
    async stop() {
      const c = child
      if (c.exitCode === null && c.signalCode === null && c.pid !== undefined) {
        process.kill(c.pid, 'SIGCONT')
        process.kill(c.pid, 'SIGTERM')
        const timer = setTimeout(() => c.pid !== undefined && c.kill('SIGKILL'), 3000)
        await exited(c)
        clearTimeout(timer)
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A Redis Cluster of masters this harness started. */
export interface RedisCluster {
  /** Its nodes, as `new Redis.Cluster(cluster.nodes)` takes them. */
  readonly nodes: { host: string; port: number }[]
  readonly servers: RedisServer[]
  stop(): Promise<void>
}

function run(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`))
      else resolve(stdout)
    })
  })
}

/**
 * Start a Redis Cluster of `masters` (default 3) `redis-server`s with no replicas, on free ports, create it
 * with `redis-cli --cluster create` and wait until every node reports `cluster_state:ok`.
 *
 * @example const cluster = await startRedisCluster(); const client = new Redis.Cluster(cluster.nodes)
 */
export async function startRedisCluster(options: { masters?: number } = {}): Promise<RedisCluster> {
  const masters = options.masters ?? 3
  const servers: RedisServer[] = []
  try {
    for (let i = 0; i < masters; i++) {
      const busPort = await freePort()
      servers.push(
        await startRedis({
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-node-timeout',
            '2000',
            '--cluster-port',
            String(busPort),
          ],
        }),
      )
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...servers.map((s) => `127.0.0.1:${s.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ])
    for (const server of servers) {
      await waitFor(`cluster_state:ok on port ${server.port}`, async () => {
        try {
          return (await run('redis-cli', ['-p', String(server.port), 'cluster', 'info'])).includes(
            'cluster_state:ok',
          )
        } catch {
          return false
        }
      })
    }
  } catch (error) {
    await Promise.all(servers.map((s) => s.stop()))
    throw error
  }
  return {
    nodes: servers.map((s) => ({ host: s.host, port: s.port })),
    servers,
    stop: async () => {
      await Promise.all(servers.map((s) => s.stop()))
    },
  }
}

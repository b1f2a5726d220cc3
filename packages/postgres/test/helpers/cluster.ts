import { execFileSync, spawn } from 'node:child_process'
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, killOnExit, serverProcess } from '@floodgate/test-harness'
import pg from 'pg'

/**
 * A throwaway PostgreSQL cluster of a test's own (initdb in a temp dir, a free port, a socket in that dir),
 * to kill, freeze and restart without touching the machine's shared server. As root, the cluster runs as the
 * `postgres` user (initdb and the server refuse root). Stopped by PID; removed with its directory.
 */
export interface PostgresServer {
  readonly port: number
  /** The PID of the running postmaster (changes on restart). */
  readonly pid: number
  /** What `new pg.Pool()` takes to reach it (user postgres, database postgres, trust auth). */
  readonly connection: pg.PoolConfig
  /** Signal the postmaster (SIGKILL by default, as a crash) and wait for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>
  /** Start it again on the same port and wait until it accepts connections (after crash recovery). */
  restart(): Promise<void>
  /** The PIDs of the postmaster and every process it started (backends, background workers). */
  processes(): number[]
  /** Stop everything (SIGQUIT, then SIGKILL), and remove its directory. */
  stop(): Promise<void>
}

const binDir = () => {
  try {
    return execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim()
  } catch {
    const versions = existsSync('/usr/lib/postgresql') ? readdirSync('/usr/lib/postgresql').sort() : []
    const latest = versions.at(-1)
    if (!latest) throw new Error('PostgreSQL is not installed (apt-get install postgresql)')
    return `/usr/lib/postgresql/${latest}/bin`
  }
}

/** As root, the `postgres` user's uid and gid, to run initdb and the server as. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((l) => l.startsWith('postgres:'))
  if (!line) throw new Error('running as root, and there is no postgres user to run a test cluster as')
  const [, , uid, gid] = line.split(':')
  return { uid: Number(uid), gid: Number(gid) }
}

/** The parent PID of every process, from /proc. */
function parents(): Map<number, number> {
  const map = new Map<number, number>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      map.set(Number(entry), ppid)
    } catch {
      // the process exited meanwhile
    }
  }
  return map
}

/** Signal a process that may have exited meanwhile. */
function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name)
  } catch {
    // already gone
  }
}

async function accepting(connection: pg.PoolConfig): Promise<boolean> {
  const client = new pg.Client({ ...connection, connectionTimeoutMillis: 1000 })
  client.on('error', () => {})
  try {
    await client.connect()
    await client.query('SELECT 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/**
 * Start a throwaway cluster on a free port (or `port`), wait until it accepts connections.
 *
 * @example const server = await startPostgres(); const pool = new pg.Pool(server.connection); ...; await server.stop()
 */
export async function startPostgres(options: { port?: number } = {}): Promise<PostgresServer> {
  const bin = binDir()
  const user = serverUser()
  const dir = mkdtempSync(join(tmpdir(), 'floodgate-pg-'))
  if (user) chownSync(dir, user.uid, user.gid)
  const data = join(dir, 'data')
  const as = { ...(user ?? {}), cwd: dir, env: { PATH: process.env.PATH ?? '', LANG: 'C' } }
  execFileSync(
    `${bin}/initdb`,
    ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
    {
      ...as,
      stdio: 'ignore',
    },
  )
  const port = options.port ?? (await freePort())
  const connection: pg.PoolConfig = { host: '127.0.0.1', port, user: 'postgres', database: 'postgres' }
  const args = [
    '-D',
    data,
    '-p',
    String(port),
    '-k',
    dir,
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'fsync=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=40',
    '-c',
    'shared_buffers=16MB',
  ]
  const launch = async () => {
    const deadline = Date.now() + 20_000
    while (Date.now() < deadline) {
      const child = spawn(`${bin}/postgres`, args, { ...as, stdio: 'ignore' })
      killOnExit(child)
      let died = false
      child.once('exit', () => {
        died = true
      })
      // Not yet accepting: starting, in crash recovery, or refused to start because the backends of a killed
      // postmaster still hold its shared memory (then try again).
      while (!died && Date.now() < deadline) {
        if (await accepting(connection)) return child
        await new Promise((r) => setTimeout(r, 100))
      }
      await new Promise((r) => setTimeout(r, 200))
    }
    throw new Error(`the test PostgreSQL on port ${port} did not start`)
  }
  const server = await serverProcess({ launch, stopSignal: 'SIGQUIT', graceMs: 5000 })
  const processes = () => {
    const { child } = server
    const pid = child.pid
    if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return []
    const byParent = parents()
    return [pid, ...[...byParent].filter(([, ppid]) => ppid === pid).map(([p]) => p)]
  }
  return {
    port,
    get pid() {
      return server.pid
    },
    connection,
    processes,
    kill: server.kill,
    restart: server.restart,
    async stop() {
      for (const p of processes()) signal(p, 'SIGCONT')
      await server.stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

// Child processes for the examples' tests. Each one runs in a process group of its own, so stopping it also
// stops what it started: `npm start` runs `sh -c "node server.mjs"`, and signalling npm alone would leave the
// server running.
import { type ChildProcess, spawn } from 'node:child_process'
import { stripVTControlCharacters } from 'node:util'

const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) signalGroup(child, 'SIGKILL')
})

/**
 * This process's environment without what npm and pnpm set for the scripts they run (`npm_config_local_prefix`
 * would point a child npm at this repository), as in a user's shell. `NPM_CONFIG_*` set by hand stays.
 */
export function plainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {}
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(npm_|pnpm_|PNPM_SCRIPT_SRC_DIR$|INIT_CWD$)/.test(name)) env[name] = value
  }
  return { ...env, ...extra }
}

export interface Command {
  /** What the output and errors call it: `examples/express-basic (npm start)`. */
  label: string
  cwd: string
  command: string
  args: readonly string[]
  /** The whole environment of the process (no merging with this one's). */
  env: NodeJS.ProcessEnv
}

export interface RunningServer {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** Everything the process printed so far (stdout and stderr). */
  output(): string
  /** SIGTERM to the whole group, then wait until every process in it has exited. */
  stop(): Promise<void>
}

function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal)
  } catch {
    // the group is gone already
  }
}

function groupAlive(child: ChildProcess): boolean {
  try {
    process.kill(-child.pid!, 0)
    return true
  } catch {
    return false
  }
}

interface Spawned {
  child: ChildProcess
  output(): string
  /** The direct child's exit. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** SIGTERM to the group; resolves once every process in it is gone and all its output is read. */
  stop(): Promise<void>
}

function spawnGroup({ cwd, command, args, env }: Command): Spawned {
  const child = spawn(command, args, { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  running.add(child)
  let output = ''
  // Without the terminal's colours, which tools print where CI is set (Vite's `Local:` line, for one).
  const collect = (chunk: Buffer) => {
    output += stripVTControlCharacters(chunk.toString())
  }
  child.stdout!.on('data', collect)
  child.stderr!.on('data', collect)
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  // 'close' comes once no process holds the pipes: the child and whatever it started.
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const stop = async () => {
    signalGroup(child, 'SIGTERM')
    // Up to 5 s for the child and whatever it started to exit, then kill what is left.
    for (let waited = 0; groupAlive(child) && waited < 5_000; waited += 50) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    signalGroup(child, 'SIGKILL')
    await exited
    await closed
    running.delete(child)
  }
  return { child, output: () => output, exited, stop }
}

export interface Started {
  /** The first match of the pattern in the output. */
  match: RegExpExecArray
  /** Everything the process printed so far (stdout and stderr). */
  output(): string
  /** SIGTERM to the whole group, then wait until every process in it has exited. */
  stop(): Promise<void>
}

/**
 * Start a long-running command and resolve once its output (stdout and stderr) matches `pattern`, within
 * `timeoutMs`; reject, having stopped it, when it exits first or prints no match in time.
 */
export function startUntil(command: Command, pattern: RegExp, { timeoutMs = 25_000 } = {}): Promise<Started> {
  const { child, output, exited, stop } = spawnGroup(command)
  return new Promise((resolve, reject) => {
    let settled = false
    const fail = (why: string) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      void stop().then(() => reject(new Error(`${command.label} ${why}. Output:\n${output()}`)))
    }
    const timer = setTimeout(() => fail(`did not print ${pattern} within ${timeoutMs / 1000} s`), timeoutMs)
    const onData = () => {
      const match = pattern.exec(output())
      if (match && !settled) {
        settled = true
        clearTimeout(timer)
        resolve({ match, output, stop })
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    void exited.then(({ code, signal }) => fail(`exited (${signal ?? code}) before printing ${pattern}`))
  })
}

/** Start a server and resolve once it prints `listening on http://127.0.0.1:<port>` (within `timeoutMs`). */
export async function startServer(command: Command, { timeoutMs = 25_000 } = {}): Promise<RunningServer> {
  const { match, output, stop } = await startUntil(command, /listening on (http:\/\/127\.0\.0\.1:\d+)/, {
    timeoutMs,
  })
  return { url: match[1]!, output, stop }
}

/** Run a command to its end (killing its group after `timeoutMs`); its exit code and everything it printed. */
export async function runToEnd(
  command: Command,
  { timeoutMs }: { timeoutMs: number },
): Promise<{ code: number | null; output: string }> {
  const { output, exited, stop } = spawnGroup(command)
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    void stop()
  }, timeoutMs)
  const { code } = await exited
  clearTimeout(timer)
  await stop()
  if (timedOut)
    throw new Error(`${command.label} did not finish within ${timeoutMs / 1000} s. Output:\n${output()}`)
  return { code, output: output() }
}

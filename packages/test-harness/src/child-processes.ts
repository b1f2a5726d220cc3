import { type ChildProcess, execFile } from 'node:child_process'

const children = new Set<ChildProcess>()
let exitHookInstalled = false

/**
 * Kill `child` (SIGKILL) when this process exits, if it is still running then: a server a harness started is
 * never left behind, even when a test run is cut short.
 */
export function killOnExit(child: ChildProcess): void {
  children.add(child)
  child.once('exit', () => children.delete(child))
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', () => {
    for (const c of children) if (c.pid !== undefined) c.kill('SIGKILL')
  })
}

/** Resolves once `child` has exited (at once if it has). */
export function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/** Poll `check` every 50 ms until it holds, or throw after `timeoutMs`, naming `what` was awaited. */
export async function waitFor(
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 15_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check()) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** Run `file` with `args` to its end (30 s at most); resolves with its stdout, rejects with all it said. */
export function runFile(file: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`))
      else resolve(stdout)
    })
  })
}

/** A server process a harness started: what every test server (Redis, PostgreSQL) does with its process. */
export interface ServerProcess {
  /** The running process (a new one after `restart()`). */
  readonly child: ChildProcess
  /** Its PID (changes on restart). */
  readonly pid: number
  /** Signal it by PID (SIGKILL by default, as a crash) and wait for it to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>
  /** Launch it again (after a kill) and wait until it is ready. */
  restart(): Promise<void>
  /** Thaw it (SIGCONT), send `stopSignal`, SIGKILL it after `graceMs`, and wait for it to exit. */
  stop(): Promise<void>
}

/**
 * Launch a server process with `launch` (which spawns it and resolves once it is ready, with the process)
 * and wrap it: killed on exit, killed or stopped by PID, restarted with the same `launch`.
 *
 * @example const server = await serverProcess({ launch, stopSignal: 'SIGTERM', graceMs: 3000 })
 */
export async function serverProcess(parts: {
  launch: () => Promise<ChildProcess>
  stopSignal: NodeJS.Signals
  graceMs: number
}): Promise<ServerProcess> {
  const start = async () => {
    const launched = await parts.launch()
    killOnExit(launched)
    return launched
  }
  let child = await start()
  return {
    get child() {
      return child
    },
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
      child = await start()
    },
    async stop() {
      const c = child
      if (c.exitCode !== null || c.signalCode !== null || c.pid === undefined) return
      process.kill(c.pid, 'SIGCONT')
      process.kill(c.pid, parts.stopSignal)
      const timer = setTimeout(() => c.pid !== undefined && c.kill('SIGKILL'), parts.graceMs)
      await exited(c)
      clearTimeout(timer)
    },
  }
}

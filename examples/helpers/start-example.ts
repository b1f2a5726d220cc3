// Starts an example's server as a child process (`node server.mjs` with PORT=0), waits for the line that names
// its address, and stops it. The examples import the BUILT packages, so a missing dist fails with a message
// that says how to build.
import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const running = new Set<ChildProcess>()
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL')
})

/** Throw, naming the build command, when a `@floodgate/*` package the example depends on is not built. */
export function requireBuilt(example: string): void {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'examples', example, 'package.json'), 'utf8'))
  const missing = Object.keys(pkg.dependencies ?? {})
    .filter((name) => name.startsWith('@floodgate/'))
    .filter(
      (name) => !existsSync(join(ROOT, 'packages', name.slice('@floodgate/'.length), 'dist', 'index.js')),
    )
  if (missing.length > 0) {
    throw new Error(
      `examples/${example} runs the built packages, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not built. ` +
        'Run `npx turbo run build` (or `npm test`, which builds first).',
    )
  }
}

export interface RunningExample {
  /** `http://127.0.0.1:<port>` */
  url: string
  /** Everything the process printed so far (stdout and stderr). */
  output(): string
  /** SIGTERM, then wait for the process to exit. */
  stop(): Promise<void>
}

/** Start `examples/<example>/<script>` with PORT=0 and resolve once it prints `listening on http://127.0.0.1:<port>`. */
export function startExample(
  example: string,
  { script = 'server.mjs', env = {} }: { script?: string; env?: Record<string, string> } = {},
): Promise<RunningExample> {
  requireBuilt(example)
  const cwd = join(ROOT, 'examples', example)
  const child = spawn(process.execPath, [script], {
    cwd,
    env: { ...process.env, PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.add(child)
  let output = ''
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
    running.delete(child)
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop()
      reject(
        new Error(`examples/${example}/${script} did not print its address within 25 s. Output:\n${output}`),
      )
    }, 25_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (match) {
        clearTimeout(timer)
        resolve({ url: match[1]!, output: () => output, stop })
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(
        new Error(
          `examples/${example}/${script} exited (${signal ?? code}) before listening. Output:\n${output}`,
        ),
      )
    })
  })
}

// Starts an example's server as a child process (`node server.mjs` with PORT=0), waits for the line that names
// its address, and stops it. The examples import the BUILT packages, so a missing dist fails with a message
// that says how to build.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, requireBuiltPackages } from '../../scripts/pack.mjs'
import { type RunningServer, startServer } from './processes.js'

export { ROOT, requireBuiltPackages }

/** Throw, naming the build command, when a `@floodgate/*` package the example depends on is not built. */
export function requireBuilt(example: string): void {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'examples', example, 'package.json'), 'utf8'))
  const names = Object.keys(pkg.dependencies ?? {}).filter((name) => name.startsWith('@floodgate/'))
  requireBuiltPackages(names, `examples/${example}`)
}

export type RunningExample = RunningServer

/** How an example is started. */
export interface ExampleStart {
  /** @default 'server.mjs' */
  script?: string
  env?: Record<string, string>
  /** Run it on the older major of its framework (Express 4, Koa 2): see `older-majors.mjs`. */
  olderMajor?: boolean
}

/** Start `examples/<example>/<script>` with PORT=0 and resolve once it prints `listening on http://127.0.0.1:<port>`. */
export function startExample(
  example: string,
  { script = 'server.mjs', env = {}, olderMajor = false }: ExampleStart = {},
): Promise<RunningExample> {
  requireBuilt(example)
  const hooks = pathToFileURL(join(ROOT, 'examples', 'helpers', 'older-majors.mjs')).href
  return startServer({
    label: `examples/${example}/${script}${olderMajor ? ' (older major)' : ''}`,
    cwd: join(ROOT, 'examples', example),
    command: process.execPath,
    args: olderMajor ? ['--import', hooks, script] : [script],
    env: { ...process.env, PORT: '0', ...env },
  })
}

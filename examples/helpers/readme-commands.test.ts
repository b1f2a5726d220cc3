// Every command in the shell blocks of README.md and examples/*/README.md, run the way a user with only Node
// and npm runs it: PATH holds no pnpm (nor this repository's node_modules/.bin), npm's and vitest's variables
// are gone. The cheap commands run to their end; the long-running ones (a server, the playground, the whole
// test suite, the bench) are started, checked once they show they work, and stopped. `cd` moves the
// following commands, as in a shell; curl commands go to the server the README started last (its port taken
// from the output: each server is started on a free port, and the README's port rewritten). A command with no
// way of checking here fails the test: add it to `how` below. Needs the built packages, Redis and the npm
// registry (or its cache), as the examples' own tests do.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, join, relative, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { expectDemoOutput } from './example-checks.js'
import { type Command, plainEnv, type RunningServer, runToEnd, startServer, startUntil } from './processes.js'
import { ROOT } from './start-example.js'

interface ReadmeCommand {
  /** The README, relative to the repository. */
  file: string
  line: number
  /** The heading the block is under. */
  section: string
  text: string
}

/** The commands of a README's `sh` blocks, in order, without comments and comment lines. */
export function readmeCommands(file: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = []
  let section = ''
  let fence: string | undefined
  readFileSync(join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      const opening = /^\s*```(\w*)/.exec(line)
      if (opening) {
        fence = fence === undefined ? opening[1]! : undefined
        return
      }
      if (fence === undefined) {
        if (/^#{1,6} /.test(line)) section = line.replace(/^#+ /, '')
        return
      }
      if (!['sh', 'bash', 'shell'].includes(fence)) return
      const text = line.replace(/\s+#\s.*$/, '').trim()
      if (text === '' || text.startsWith('#')) return
      commands.push({ file, line: index + 1, section, text })
    })
  return commands
}

const READMES = [
  'README.md',
  ...readdirSync(join(ROOT, 'examples'))
    .filter((name) => existsSync(join(ROOT, 'examples', name, 'README.md')))
    .sort()
    .map((name) => `examples/${name}/README.md`),
]

/** A user's PATH: no directory that holds a `pnpm`, and none of this repository's `node_modules/.bin`. */
const userPath = (process.env.PATH ?? '')
  .split(delimiter)
  .filter((dir) => dir !== '' && !existsSync(join(dir, 'pnpm')) && !dir.includes('node_modules'))
  .join(delimiter)

/** A user's environment: no pnpm on PATH, none of npm's, pnpm's or vitest's variables. */
function userEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = plainEnv({ PATH: userPath, ...extra })
  for (const name of Object.keys(env)) if (/^(VITEST|TEST$|NODE_ENV$)/.test(name)) delete env[name]
  return env
}

const shell = (label: string, cwd: string, text: string, env = userEnv()): Command => ({
  label,
  cwd,
  command: 'sh',
  args: ['-c', text],
  env,
})

/** Where a README's commands run, and the servers they started (by the port the README gives them). */
interface Session {
  cwd: string
  servers: Map<string, RunningServer>
  /** The server `curl http://127.0.0.1:3000` means: the last one `npm start` started. */
  current?: RunningServer
}

const ranOnce = new Map<string, Promise<void>>()
/** Run `key`'s work once for the whole file: the same idempotent command in the same folder (an install, a build). */
const once = (key: string, work: () => Promise<void>) => {
  if (!ranOnce.has(key)) ranOnce.set(key, work())
  return ranOnce.get(key)!
}

async function toEnd(label: string, cwd: string, text: string, timeoutMs: number, env = userEnv()) {
  const { code, output } = await runToEnd(shell(label, cwd, text, env), { timeoutMs })
  expect(code, `${label} exited ${code}:\n${output}`).toBe(0)
  expect(output).not.toMatch(/Unable to find package manager binary|command not found|EUNSUPPORTEDPROTOCOL/)
  return output
}

/** Start a long-running command, wait for `pattern` in its output, stop it; the match. */
async function startAndStop(label: string, cwd: string, text: string, pattern: RegExp, timeoutMs: number) {
  const started = await startUntil(shell(label, cwd, text), pattern, { timeoutMs })
  await started.stop()
  expect(started.output()).not.toMatch(/Unable to find package manager binary/)
  return started.match
}

const REDIS_URL = 'redis://127.0.0.1:6379/11'
/** A key prefix of this run's own, so that the multi-instance servers never share counters with another run. */
const PREFIX = `floodgate-readme-${process.pid}`

/** `http://127.0.0.1:<README port>` written as the address of the server started for that port. */
function onRunningServers(text: string, session: Session): string {
  let rewritten = text
  const ports = new Map(session.servers)
  if (session.current) ports.set('3000', session.current)
  for (const [port, server] of ports) {
    rewritten = rewritten.replace(new RegExp(`\\b${port}\\b`, 'g'), new URL(server.url).port)
  }
  return rewritten
}

/**
 * How each command is checked: the first rule whose pattern matches runs it. Each returns a description of
 * what it did, for the failure messages.
 */
const how: [RegExp, (command: ReadmeCommand, session: Session, match: RegExpExecArray) => Promise<void>][] = [
  [
    /^cd (\S+)$/,
    async (_command, session, match) => {
      session.cwd = resolve(session.cwd, match[1]!)
      expect(existsSync(session.cwd), `${match[1]} exists`).toBe(true)
    },
  ],
  [
    /^(npx -y pnpm@12\.4\.2 install|npm run build)$/,
    (command, session) =>
      once(`${session.cwd}\0${command.text}`, async () => {
        await toEnd(command.text, session.cwd, command.text, 240_000)
      }),
  ],
  [
    /^npm run demo$/,
    async (command, session) => {
      expectDemoOutput(await toEnd(command.text, session.cwd, command.text, 240_000))
    },
  ],
  [
    /^npm run pack$/,
    (command, session) =>
      once(`${session.cwd}\0${command.text}`, async () => {
        const output = await toEnd(command.text, session.cwd, command.text, 300_000)
        expect(output).toMatch(/packed\/floodgate-core-[\d.]+\.tgz/)
      }),
  ],
  [
    // installing the tarballs into an app of one's own: a fresh folder beside nothing, the clone being ROOT
    /^npm install \.\.\/floodgate\/packed\//,
    async (command) => {
      const packed = join(ROOT, 'packed')
      if (!existsSync(packed)) {
        await once(`${ROOT}\0npm run pack`, async () => {
          await toEnd('npm run pack', ROOT, 'npm run pack', 300_000)
        })
      }
      const app = await mkdtemp(join(tmpdir(), 'floodgate-readme-app-'))
      try {
        await writeFile(
          join(app, 'package.json'),
          '{ "name": "my-app", "private": true, "type": "module" }\n',
        )
        const text = command.text.replaceAll('../floodgate/', `${ROOT}/`)
        await toEnd(command.text, app, `${text} --no-audit --no-fund --prefer-offline`, 180_000)
        for (const spec of text.split(/\s+/).slice(2)) {
          const name = spec.endsWith('.tgz')
            ? `@floodgate/${/floodgate-([a-z]+)-/.exec(spec)![1]}`
            : spec.replace(/@[^@/]*$/, '')
          expect(existsSync(join(app, 'node_modules', name, 'package.json')), `${name} is installed`).toBe(
            true,
          )
        }
      } finally {
        await rm(app, { recursive: true, force: true })
      }
    },
  ],
  [
    /^npm start$/,
    async (command, session) => {
      const example = relative(join(ROOT, 'examples'), session.cwd)
      if (example === 'demo') {
        expectDemoOutput(await toEnd(command.text, session.cwd, command.text, 90_000))
      } else if (example === 'multi-instance') {
        // fewer requests than the README's default 360 (its REQUESTS and LIMIT), to keep the test short
        const env = userEnv({ REDIS_URL, REQUESTS: '90', LIMIT: '25' })
        expect(await toEnd(command.text, session.cwd, command.text, 150_000, env)).toContain(
          'exactly 25 passed',
        )
      } else {
        await session.current?.stop()
        session.current = await startServer(
          shell(`${example}: npm start`, session.cwd, command.text, userEnv({ PORT: '0' })),
        )
      }
    },
  ],
  [
    // multi-instance: `STORE=redis LIMIT=5 PORT=3001 node server.mjs`, a server for the curl lines that follow
    /^(?:\w+=\S+ )*PORT=(\d+) node server\.mjs$/,
    async (command, session, match) => {
      const text = command.text.replace(/PORT=\d+/, 'PORT=0')
      const server = await startServer(shell(command.text, session.cwd, text, userEnv({ REDIS_URL, PREFIX })))
      session.servers.set(match[1]!, server)
    },
  ],
  [
    /^(curl |for )/,
    async (command, session) => {
      expect(session.current ?? session.servers.size, `a server runs for ${command.text}`).toBeTruthy()
      const output = await toEnd(command.text, session.cwd, onRunningServers(command.text, session), 30_000)
      expect(output.trim(), command.text).not.toBe('')
    },
  ],
  [
    // the whole suite: started until turbo runs its tasks (pnpm and turbo found without pnpm on PATH), stopped
    /^(npm test|npx -y pnpm@12\.4\.2 test:run)$/,
    async (command, session) => {
      await startAndStop(
        command.text,
        session.cwd,
        command.text,
        /• Running build, typecheck, publint/,
        180_000,
      )
    },
  ],
  [
    /^npm run playground$/,
    async (command, session) => {
      const started = await startUntil(
        shell(command.text, session.cwd, command.text),
        /Local:\s+(http:\/\/\S+?)\/?\s/,
        {
          timeoutMs: 120_000,
        },
      )
      try {
        const page = await fetch(started.match[1]!)
        expect(page.status).toBe(200)
        expect(await page.text()).toContain('<title>')
      } finally {
        await started.stop()
      }
    },
  ],
  [
    /^npx vitest run packages\/\w+$/,
    async (command, session) => {
      await startAndStop(command.text, session.cwd, command.text, /RUN[\s\S]{0,40}?v\d+\.\d+/, 90_000)
    },
  ],
  [
    /^npm run bench$/,
    async (command, session) => {
      await startAndStop(command.text, session.cwd, command.text, /^== \w+: node /m, 180_000)
    },
  ],
]

/** Commands under these headings run in a copy of the example, which `packed-examples.test.ts` makes and runs. */
const IN_A_COPY = /^use it in your project$/i

const sessions: Session[] = []
/** How long each command took, printed at the end: the test's time is bounded by these. */
const timings: string[] = []
afterAll(async () => {
  console.log(`The README commands' times:\n  ${timings.join('\n  ')}`)
  for (const session of sessions) {
    await session.current?.stop()
    for (const server of session.servers.values()) await server.stop()
  }
}, 60_000)

describe("every README's commands, with only Node and npm", () => {
  it('finds the commands', () => {
    const texts = READMES.flatMap(readmeCommands).map((c) => c.text)
    expect(texts).toEqual(
      expect.arrayContaining(['npm run demo', 'npm run build', 'npm start', 'npm run pack']),
    )
  })

  for (const file of READMES) {
    it(file, async () => {
      const session: Session = { cwd: ROOT, servers: new Map() }
      sessions.push(session)
      for (const command of readmeCommands(file)) {
        if (IN_A_COPY.test(command.section)) {
          expect(['npm install', 'npm start'], `${file}:${command.line}`).toContain(command.text)
          continue
        }
        const rule = how.map(([pattern, run]) => [pattern.exec(command.text), run] as const).find(([m]) => m)
        if (!rule) {
          throw new Error(
            `${file}:${command.line}: no way to check \`${command.text}\` here: add one to \`how\`.`,
          )
        }
        const started = Date.now()
        try {
          await rule[1](command, session, rule[0]!)
          timings.push(
            `${file}:${command.line} ${((Date.now() - started) / 1000).toFixed(1)} s  ${command.text}`,
          )
        } catch (error) {
          throw new Error(
            `${file}:${command.line} \`${command.text}\` (in ${relative(ROOT, session.cwd) || '.'}): ${(error as Error).message}`,
          )
        }
      }
      await session.current?.stop()
      session.current = undefined
      for (const server of session.servers.values()) await server.stop()
      session.servers.clear()
    }, 600_000)
  }
})

// The adapter conformance suite on the packages as users install them: for each supported framework major, a
// fresh app outside the repository installs the packed @floodgate/core, the adapter and @floodgate/redis with
// plain npm beside that major from the registry (or the machine's npm cache), and the suite's scenarios run
// against the app's installed copies (packed-adapter-suite.config.ts), on the memory store and on Redis.
// Needs the built packages (`npm test` builds first), the npm registry, and Redis on 127.0.0.1:6379.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { packPackages } from './pack-packages.js'
import { plainEnv, runToEnd } from './processes.js'
import { ROOT } from './start-example.js'

const run = promisify(execFile)

interface Major {
  /** The suite's driver for this major (`adapter conformance: <driver> on memory`). */
  driver: string
  adapter: '@floodgate/express' | '@floodgate/fastify' | '@floodgate/koa'
  /** What the app installs from the registry beside the tarballs. */
  install: string[]
  /** The framework names the driver imports -> the app's package behind each (`express4` is its `express`). */
  frameworks: Record<string, string>
  /** The installed framework's version. */
  version: RegExp
}

const majors: Major[] = [
  {
    driver: 'express',
    adapter: '@floodgate/express',
    install: ['express@5'],
    frameworks: { express: 'express' },
    version: /^5\./,
  },
  {
    driver: 'express4',
    adapter: '@floodgate/express',
    install: ['express@4'],
    frameworks: { express4: 'express' },
    version: /^4\./,
  },
  {
    driver: 'koa',
    adapter: '@floodgate/koa',
    install: ['koa@3', '@koa/router@15'],
    frameworks: { koa: 'koa', '@koa/router': '@koa/router' },
    version: /^3\./,
  },
  {
    driver: 'koa2',
    adapter: '@floodgate/koa',
    install: ['koa@2', '@koa/router@15'],
    frameworks: { koa2: 'koa', '@koa/router': '@koa/router' },
    version: /^2\./,
  },
  {
    driver: 'fastify',
    adapter: '@floodgate/fastify',
    install: ['fastify@5'],
    frameworks: { fastify: 'fastify' },
    version: /^5\./,
  },
]

/** The published packages each app installs from the tarballs; the suite imports them by these names. */
const floodgate = (major: Major) => ['@floodgate/core', major.adapter, '@floodgate/redis']

/** This process's environment for a child vitest: none of npm's, pnpm's or this vitest's variables. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = plainEnv(extra)
  for (const name of Object.keys(env)) if (/^(VITEST|TEST$|NODE_ENV$)/.test(name)) delete env[name]
  return env
}

let work = ''
const installs = new Map<string, Promise<string>>()

/** A fresh app in `work/<driver>`: `npm install` of the tarballs and the framework major. Resolves with its folder. */
async function installApp(major: Major, tarballs: ReadonlyMap<string, string>): Promise<string> {
  const app = join(work, major.driver)
  await mkdir(app)
  await writeFile(
    join(app, 'package.json'),
    `${JSON.stringify({ name: `fresh-${major.driver}-app`, private: true, type: 'module' }, null, 2)}\n`,
  )
  const packed = floodgate(major).map((name) => tarballs.get(name)!)
  await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...packed, ...major.install], {
    cwd: app,
    env: plainEnv(),
    timeout: 150_000,
  })
  return app
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'floodgate-packed-suite-'))
  const tarballs = await packPackages([...new Set(majors.flatMap(floodgate))].sort(), join(work, 'tarballs'))
  // All installs at once (they wait on the network more than on the CPU); each test awaits its own.
  for (const major of majors) {
    const install = installApp(major, tarballs)
    install.catch(() => {}) // reported by the major's own test
    installs.set(major.driver, install)
  }
}, 120_000)

afterAll(async () => {
  await Promise.allSettled(installs.values())
  if (work) await rm(work, { recursive: true, force: true })
}, 60_000)

describe('the adapter conformance suite on the packed packages, installed with plain npm', () => {
  for (const major of majors) {
    it(`${major.install[0]}: a fresh app installs ${floodgate(major).join(', ')}, and every scenario passes on memory and Redis`, async () => {
      const app = await installs.get(major.driver)!
      const framework = Object.values(major.frameworks)[0]!
      const installed = JSON.parse(
        await readFile(join(app, 'node_modules', framework, 'package.json'), 'utf8'),
      )
      expect(installed.version).toMatch(major.version)
      // one @floodgate/core, the tarball's, under the adapter and the store alike
      const { stdout: cores } = await run('npm', ['ls', '@floodgate/core', '--all', '--parseable'], {
        cwd: app,
        env: plainEnv(),
      })
      expect(cores.trim().split('\n')).toEqual([join(app, 'node_modules/@floodgate/core')])

      const names = Object.fromEntries(floodgate(major).map((name) => [name, name]))
      names['@floodgate/core/internal'] = '@floodgate/core/internal'
      Object.assign(names, major.frameworks)
      const report = join(app, 'conformance-report.json')
      const { code, output } = await runToEnd(
        {
          label: `the conformance suite on the ${major.driver} app`,
          cwd: ROOT,
          command: join(ROOT, 'node_modules/.bin/vitest'),
          args: [
            'run',
            '--config',
            'examples/helpers/packed-adapter-suite.config.ts',
            '-t',
            `^adapter conformance: ${major.driver} on `,
          ],
          env: childEnv({
            FLOODGATE_PACKED_APP: app,
            FLOODGATE_PACKED_NAMES: JSON.stringify(names),
            FLOODGATE_PACKED_REPORT: report,
          }),
        },
        { timeoutMs: 150_000 },
      )
      expect(code, output).toBe(0)

      // every name the suite imports loaded the app's file (the run's setup checked it and wrote them down)
      const resolved: Record<string, string> = JSON.parse(await readFile(`${report}.resolved.json`, 'utf8'))
      expect(Object.keys(resolved).sort()).toEqual(Object.keys(names).sort())
      for (const file of Object.values(resolved))
        expect(file.startsWith(join(app, 'node_modules'))).toBe(true)
      expect(resolved[major.adapter]).toBe(join(app, 'node_modules', major.adapter, 'dist/index.js'))

      const results = JSON.parse(await readFile(report, 'utf8'))
      expect(results.numFailedTests, output).toBe(0)
      expect(results.numPassedTests).toBeGreaterThan(0)
      // every scenario of this driver ran and passed, on both stores, and nothing else ran
      const tests = results.testResults.flatMap((file: any) => file.assertionResults)
      const ran = tests.filter((test: any) => test.status !== 'pending' && test.status !== 'skipped')
      const ofDriver = tests.filter((test: any) =>
        test.ancestorTitles[0].startsWith(`adapter conformance: ${major.driver} on `),
      )
      expect(ran).toEqual(ofDriver)
      expect(ofDriver.every((test: any) => test.status === 'passed')).toBe(true)
      expect(new Set(ofDriver.map((test: any) => test.ancestorTitles[0]))).toEqual(
        new Set([
          `adapter conformance: ${major.driver} on memory`,
          `adapter conformance: ${major.driver} on redis`,
        ]),
      )
    }, 170_000)
  }
})

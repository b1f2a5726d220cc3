// The public packages as `npm run pack` writes them: every one passes `npm publish --dry-run` (nothing is
// published), none names a `workspace:` version, and an app outside the repository installs them with plain
// npm (the tarballs beside express from the registry, or the machine's npm cache) and serves limited requests.
// Needs the built packages (`npm test` builds first).
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { publicPackages } from '../../scripts/pack.mjs'
import { packPackages } from './pack-packages.js'
import { plainEnv, startServer } from './processes.js'

const run = promisify(execFile)
const names = publicPackages()
let work = ''
let tarballs = new Map<string, string>()

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'floodgate-packed-'))
  tarballs = await packPackages(names, join(work, 'packed'))
}, 120_000)

afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true })
})

/** A file of a tarball, read with tar (the packages are gzipped tar files with everything under `package/`). */
async function fileOf(tarball: string, path: string): Promise<string> {
  const { stdout } = await run('tar', ['-xOzf', tarball, `package/${path}`], { maxBuffer: 16 * 1024 * 1024 })
  return stdout
}

describe('npm run pack: one installable tarball per public package', () => {
  it('packs every package of the workspace not marked private', () => {
    expect(names).toEqual(
      expect.arrayContaining(['@floodgate/core', '@floodgate/express', '@floodgate/fastify']),
    )
    expect(names).not.toContain('@floodgate/adapter-suite')
    expect([...tarballs.keys()].sort()).toEqual(names)
  })

  it('writes each @floodgate/* dependency as the version (a peer dependency as ^ the version), never workspace:', async () => {
    for (const [name, tarball] of tarballs) {
      const pkg = JSON.parse(await fileOf(tarball, 'package.json'))
      const deps = { ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies }
      for (const [dep, spec] of Object.entries(deps)) {
        expect(spec, `${name} -> ${dep}`).not.toMatch(/^workspace:/)
      }
      if (pkg.dependencies?.['@floodgate/core']) expect(pkg.dependencies['@floodgate/core']).toBe(pkg.version)
      // @floodgate/testing takes the app's own core: any release of the same minor
      if (pkg.peerDependencies?.['@floodgate/core']) {
        expect(pkg.peerDependencies['@floodgate/core'], name).toBe(`^${pkg.version}`)
      }
    }
    expect(names).toContain('@floodgate/testing')
  })

  it('npm publish --dry-run passes for every public package, and publishes nothing', async () => {
    const publish = async (name: string, tarball: string) => {
      const { stdout } = await run('npm', ['publish', '--dry-run', '--json', '--access', 'public', tarball], {
        cwd: work,
        env: plainEnv(),
        timeout: 90_000,
      })
      const report = JSON.parse(stdout.slice(stdout.indexOf('{')))
      return { name, reported: report[name] ?? report }
    }
    // all at once: each waits on the registry more than on the CPU
    for (const { name, reported } of await Promise.all([...tarballs].map(([n, t]) => publish(n, t)))) {
      expect(reported.name, name).toBe(name)
      expect(reported.entryCount, name).toBeGreaterThan(2)
    }
  }, 120_000)
})

describe('an app outside the repository, on plain npm and the packed packages', () => {
  it('installs @floodgate/core and @floodgate/express beside express 5 and serves limited requests', async () => {
    const app = join(work, 'app')
    await run('mkdir', ['-p', app])
    await writeFile(
      join(app, 'package.json'),
      `${JSON.stringify({ name: 'fresh-app', private: true, type: 'module' }, null, 2)}\n`,
    )
    await run(
      'npm',
      [
        'install',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        tarballs.get('@floodgate/core')!,
        tarballs.get('@floodgate/express')!,
        'express@5',
      ],
      { cwd: app, env: plainEnv(), timeout: 150_000 },
    )
    // one @floodgate/core, the tarball's: the adapter's dependency on 0.1.0 is met by it, not the registry
    const installed = JSON.parse(
      await readFile(join(app, 'node_modules/@floodgate/core/package.json'), 'utf8'),
    )
    expect(installed.version).toBe(
      JSON.parse(await fileOf(tarballs.get('@floodgate/core')!, 'package.json')).version,
    )
    const { stdout: tree } = await run('npm', ['ls', '@floodgate/core', '--all', '--parseable'], {
      cwd: app,
      env: plainEnv(),
    })
    expect(tree.trim().split('\n')).toEqual([join(app, 'node_modules/@floodgate/core')])
    // and the CommonJS build loads too
    const { stdout: cjs } = await run(
      process.execPath,
      ['-e', "console.log(typeof require('@floodgate/express').rateLimit)"],
      { cwd: app },
    )
    expect(cjs.trim()).toBe('function')

    await writeFile(
      join(app, 'server.mjs'),
      [
        "import express from 'express'",
        "import { rateLimit } from '@floodgate/express'",
        'const app = express()',
        "app.use(rateLimit({ limit: 2, window: '1m' }))",
        "app.get('/', (_req, res) => res.json({ ok: true }))",
        "const server = app.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port))",
        '',
      ].join('\n'),
    )
    const server = await startServer({
      label: 'the fresh app (node server.mjs)',
      cwd: app,
      command: process.execPath,
      args: ['server.mjs'],
      env: plainEnv(),
    })
    try {
      const answers = []
      for (let i = 0; i < 3; i++) answers.push(await fetch(`${server.url}/`))
      expect(answers.map((r) => r.status)).toEqual([200, 200, 429])
      expect(answers[0]!.headers.get('ratelimit-policy')).toBe('2;w=60')
      expect(answers[1]!.headers.get('ratelimit-remaining')).toBe('0')
      expect(Number(answers[2]!.headers.get('retry-after'))).toBeGreaterThan(0)
      expect(await answers[2]!.json()).toMatchObject({ error: 'rate_limited', policy: 'ip' })
    } finally {
      await server.stop()
    }
  }, 170_000)
})

describe('an app on an older framework major, on plain npm and the packed packages', () => {
  // npm refused the adapters beside Express 4 and Koa 2 (ERESOLVE) while their peer ranges said >= 5 and >= 3.
  const apps = [
    {
      adapter: '@floodgate/express',
      frameworks: ['express@4'],
      server: [
        "import express from 'express'",
        "import { rateLimit } from '@floodgate/express'",
        'const app = express()',
        "app.use(rateLimit({ key: 'endpoint', limit: 1, window: '1m' }))",
        "app.get('/users/:id', (_req, res) => res.json({ ok: true }))",
        "const server = app.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port))",
      ],
    },
    {
      adapter: '@floodgate/koa',
      frameworks: ['koa@2', '@koa/router@15'],
      server: [
        "import Koa from 'koa'",
        "import Router from '@koa/router'",
        "import { rateLimit } from '@floodgate/koa'",
        'const app = new Koa()',
        'const router = new Router()',
        "router.get('/users/:id', (ctx) => { ctx.body = { ok: true } })",
        "app.use(rateLimit({ key: 'endpoint', limit: 1, window: '1m' })).use(router.routes())",
        "const server = app.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port))",
      ],
    },
  ]

  it.each(apps)(
    'installs $adapter beside $frameworks.0, and an app-wide endpoint key counts by the route',
    async ({ adapter, frameworks, server: lines }) => {
      const app = join(work, `older-${adapter.slice('@floodgate/'.length)}`)
      await run('mkdir', ['-p', app])
      await writeFile(
        join(app, 'package.json'),
        `${JSON.stringify({ name: 'older-app', private: true, type: 'module' }, null, 2)}\n`,
      )
      const install = [tarballs.get('@floodgate/core')!, tarballs.get(adapter)!, ...frameworks]
      await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...install], {
        cwd: app,
        env: plainEnv(),
        timeout: 150_000,
      })
      const framework = frameworks[0]!.split('@')[0]!
      const major = JSON.parse(await readFile(join(app, 'node_modules', framework, 'package.json'), 'utf8'))
      expect(major.version).toMatch(framework === 'express' ? /^4\./ : /^2\./)
      await writeFile(join(app, 'server.mjs'), `${lines.join('\n')}\n`)
      const server = await startServer({
        label: `the ${frameworks[0]} app (node server.mjs)`,
        cwd: app,
        command: process.execPath,
        args: ['server.mjs'],
        env: plainEnv(),
      })
      try {
        const statuses = []
        for (const path of ['/users/1', '/users/2', '/nowhere'])
          statuses.push((await fetch(`${server.url}${path}`)).status)
        // /users/1 and /users/2 are one endpoint (GET /users/:id); /nowhere is another
        expect(statuses).toEqual([200, 429, 404])
      } finally {
        await server.stop()
      }
    },
    170_000,
  )
})

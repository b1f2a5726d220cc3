import { type ChildProcess, fork } from 'node:child_process'
import { existsSync, rmSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/** A fixture bundled to run as a Node process of its own. */
export interface FixtureBundle {
  /** The bundle, an `.mjs` file to fork. */
  readonly file: string
  /** Delete the bundle. */
  remove(): void
}

/** The folder of the package `file` is in: the nearest one above it with a package.json. */
function packageDirOf(file: string): string {
  let dir = dirname(file)
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error(`${file} is in no package`)
    dir = parent
  }
  return dir
}

const source = (pkg: string, entry = 'index') =>
  fileURLToPath(new URL(`../../${pkg}/src/${entry}.ts`, import.meta.url))

/**
 * Bundle a fixture (a `.ts` file of a package's tests, forked as separate Node processes): its `@floodgate/*`
 * imports come from the TypeScript sources (no build needed), `external` (the package's own dependencies:
 * `ioredis`, `pg`) stay imports. The bundle is written to the package's `node_modules`, where it finds them.
 *
 * @example const bundle = await bundleFixture({ entry: new URL('./fire.ts', import.meta.url), external: ['pg', 'zod'] })
 */
export async function bundleFixture(options: { entry: URL; external: string[] }): Promise<FixtureBundle> {
  const entry = fileURLToPath(options.entry)
  const name = basename(entry, '.ts')
  // Of this process's own: test files that bundle the same fixture run side by side.
  const outDir = join(packageDirOf(entry), 'node_modules', `.floodgate-test-${name}-${process.pid}`)
  const { build } = await import('tsup')
  await build({
    entry: { [name]: entry },
    outDir,
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    outExtension: () => ({ js: '.mjs' }),
    noExternal: [/^@floodgate\//],
    external: options.external,
    // A CommonJS dependency bundled in (an adapter's own, such as parseurl) requires Node's modules: give the
    // ES module bundle a require to do it with.
    banner: {
      js: "import { createRequire as createRequireOfBundle } from 'node:module'; const require = createRequireOfBundle(import.meta.url);",
    },
    esbuildOptions(esbuild) {
      esbuild.alias = {
        '@floodgate/core/internal': source('core', 'internal'),
        '@floodgate/core': source('core'),
        '@floodgate/redis': source('redis'),
        '@floodgate/express': source('express'),
        '@floodgate/fastify': source('fastify'),
        '@floodgate/koa': source('koa'),
      }
    },
    config: false,
    silent: true,
    dts: false,
    clean: false,
    sourcemap: false,
  })
  return { file: join(outDir, `${name}.mjs`), remove: () => rmSync(outDir, { recursive: true, force: true }) }
}

/** Forked children speaking a request/reply protocol over IPC. */
export interface Fleet {
  readonly children: ChildProcess[]
  /** Resolve with the next reply of each child (of `children`, by default all). */
  replies<T>(children?: ChildProcess[]): Promise<T[]>
  /** Send `message` to each child and resolve with each one's next reply. */
  ask<T>(message: unknown, children?: ChildProcess[]): Promise<T[]>
  /** Send `message` to every child, expecting no reply. */
  tell(message: unknown): void
  /** Ask the children to exit (`{ type: 'exit' }`), kill those that do not within 3 s, and remove the bundle. */
  stop(): Promise<void>
}

/**
 * A reply is the next message that is not part of a stream (`{ stream: true, ... }`); rejects when the child
 * exits first.
 */
function reply<T>(child: ChildProcess): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`a child exited (code ${code})`))
    const onMessage = (message: unknown) => {
      if ((message as { stream?: boolean }).stream === true) return
      child.off('exit', onExit)
      child.off('message', onMessage)
      resolve(message as T)
    }
    child.once('exit', onExit)
    child.on('message', onMessage)
  })
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve()
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000)
    child.once('exit', () => {
      clearTimeout(timer)
      resolve()
    })
    if (child.connected) child.send({ type: 'exit' })
    else child.kill('SIGKILL')
  })
}

/**
 * Bundle a fixture (see {@link bundleFixture}) and fork it `size` times, each child with `args`.
 *
 * @example
 * const fleet = await forkFixture({ entry: new URL('./fixtures/fire.ts', import.meta.url), external: ['pg'], size: 4 })
 * const reports = await fleet.ask<Report>({ type: 'fire' })
 * await fleet.stop()
 */
export async function forkFixture(options: {
  entry: URL
  external: string[]
  size: number
  args?: string[]
}): Promise<Fleet> {
  const bundle = await bundleFixture(options)
  const children = Array.from({ length: options.size }, () =>
    fork(bundle.file, options.args ?? [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }),
  )
  return {
    children,
    replies: <T>(to = children) => Promise.all(to.map((c) => reply<T>(c))),
    ask<T>(message: unknown, to = children) {
      const replies = to.map((c) => reply<T>(c))
      for (const c of to) c.send(message as never)
      return Promise.all(replies)
    },
    tell(message) {
      for (const c of children) if (c.connected) c.send(message as never)
    },
    async stop() {
      await Promise.all(children.map(stopChild))
      bundle.remove()
    },
  }
}

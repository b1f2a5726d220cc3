// An example as a user takes it: the folder copied out of the repository, its `workspace:*` dependencies
// pointed at published-style tarballs, installed with plain npm.
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { cp, readFile, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { promisify } from 'node:util'
import { plainEnv } from './processes.js'
import { ROOT } from './start-example.js'

/** Every folder in `examples/` with a package.json and a `start` script (so not `helpers`). */
export function listExamples(): string[] {
  return readdirSync(join(ROOT, 'examples'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'helpers')
    .filter((entry) => {
      const file = join(ROOT, 'examples', entry.name, 'package.json')
      return existsSync(file) && typeof JSON.parse(readFileSync(file, 'utf8')).scripts?.start === 'string'
    })
    .map((entry) => entry.name)
    .sort()
}

/** The example's package.json with every `@floodgate/*` dependency, direct or not, on its tarball. */
function pointAtTarballs(
  pkg: Record<string, any>,
  tarballs: ReadonlyMap<string, string>,
): Record<string, any> {
  const file = (name: string) => {
    const tarball = tarballs.get(name)
    if (!tarball) throw new Error(`${pkg.name} depends on ${name}, and it was not packed.`)
    return `file:${tarball}`
  }
  const rewrite = (deps: Record<string, string> | undefined) =>
    deps &&
    Object.fromEntries(
      Object.entries(deps).map(([name, spec]) => [name, name.startsWith('@floodgate/') ? file(name) : spec]),
    )
  return {
    ...pkg,
    dependencies: rewrite(pkg.dependencies),
    devDependencies: rewrite(pkg.devDependencies),
    // A packed package names its own @floodgate/* dependencies by version (pnpm pack rewrote workspace:*),
    // which is not on the registry yet: the overrides send npm to the tarballs for those too.
    overrides: {
      ...pkg.overrides,
      ...Object.fromEntries([...tarballs.keys()].map((name) => [name, file(name)])),
    },
  }
}

/**
 * Copy `examples/<example>` (without its node_modules) into `parent`, point its `@floodgate/*` dependencies at
 * the tarballs, and `npm install` it. Resolves with the copy's directory.
 */
export async function installCopy(
  example: string,
  parent: string,
  tarballs: ReadonlyMap<string, string>,
): Promise<string> {
  const dir = join(parent, example)
  await cp(join(ROOT, 'examples', example), dir, {
    recursive: true,
    filter: (source) => basename(source) !== 'node_modules',
  })
  const manifest = join(dir, 'package.json')
  const pkg = JSON.parse(await readFile(manifest, 'utf8'))
  await writeFile(manifest, `${JSON.stringify(pointAtTarballs(pkg, tarballs), null, 2)}\n`)
  try {
    await promisify(execFile)('npm', ['install', '--no-audit', '--no-fund'], {
      cwd: dir,
      env: plainEnv(),
      timeout: 150_000,
    })
  } catch (error: any) {
    throw new Error(`npm install of the copied examples/${example} failed:\n${error.stderr ?? error.message}`)
  }
  return dir
}

// `npm run pack`: one installable tarball per public package of the workspace, in `packed/`, the way the
// registry will serve them: what each package's `files` lists, its `workspace:*` dependencies written as the
// version. Needs only Node and npm (pnpm comes through npx). The examples' tests pack through `packPackages`.
//
//   npm run pack                       builds the public packages and what they need, then packs them all
//   node scripts/pack.mjs --no-build   packs what is built
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

/** The repository's root directory. */
export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..')

/** The pinned pnpm, run through npx so that nothing but Node and npm needs to be installed. */
export const PNPM = ['-y', 'pnpm@12.4.2']

/** This process's environment without what npm and pnpm set for the scripts they run. */
function plainEnv() {
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !/^(npm_|pnpm_|PNPM_SCRIPT_SRC_DIR$|INIT_CWD$)/.test(name),
    ),
  )
}

/** The folders `pnpm-workspace.yaml` lists (`packages/*` is every folder in `packages/`). */
function workspaceFolders() {
  const yaml = readFileSync(join(ROOT, 'pnpm-workspace.yaml'), 'utf8')
  const list = /^packages:\s*\n((?:\s+-\s+.+\n?)+)/m.exec(yaml)
  if (!list) throw new Error('pnpm-workspace.yaml has no `packages:` list.')
  return [...list[1].matchAll(/-\s+['"]?([^'"\s]+)['"]?/g)].flatMap(([, glob]) => {
    if (!glob.endsWith('/*')) return [join(ROOT, glob)]
    const parent = join(ROOT, glob.slice(0, -2))
    return readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name))
  })
}

/**
 * Every package of the workspace, by name: its folder, whether it is private, and its `@floodgate/*`
 * dependencies and peers.
 *
 * @returns {Map<string, { dir: string, private: boolean, floodgateDependencies: string[] }>}
 */
export function workspacePackages() {
  const found = new Map()
  for (const dir of workspaceFolders()) {
    let pkg
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    } catch {
      continue
    }
    const deps = { ...pkg.dependencies, ...pkg.peerDependencies }
    found.set(pkg.name, {
      dir,
      private: pkg.private === true,
      floodgateDependencies: Object.keys(deps).filter((name) => name.startsWith('@floodgate/')),
    })
  }
  return found
}

/** The names of the packages that are published: every workspace package not marked private. */
export function publicPackages() {
  return [...workspacePackages()]
    .filter(([, pkg]) => !pkg.private)
    .map(([name]) => name)
    .sort()
}

/** Throw, naming the build command, when one of `names` has not been built. */
export function requireBuiltPackages(names, needer) {
  const packages = workspacePackages()
  const missing = names.filter((name) => {
    const pkg = packages.get(name)
    return !pkg || !existsSync(join(pkg.dir, 'dist', 'index.js'))
  })
  if (missing.length > 0) {
    throw new Error(
      `${needer} needs the built packages, and ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not built. ` +
        'Run `npm run build` (or `npm test`, which builds first).',
    )
  }
}

/** Build `names` and the packages they depend on. */
export async function buildPackages(names) {
  const filters = names.map((name) => `--filter=${name}...`)
  await promisify(execFile)(
    'npx',
    [...PNPM, 'exec', 'turbo', 'run', 'build', '--output-logs=errors-only', ...filters],
    { cwd: ROOT, env: plainEnv(), maxBuffer: 16 * 1024 * 1024 },
  )
}

/**
 * Pack `names` into `destination` as they will be published (`pnpm pack`: `workspace:*` written as the
 * version), in one pnpm run. Resolves with each tarball's path by package name.
 *
 * @param {readonly string[]} names
 * @param {string} destination
 * @returns {Promise<Map<string, string>>}
 */
export async function packPackages(names, destination) {
  requireBuiltPackages(names, 'Packing')
  mkdirSync(destination, { recursive: true })
  const filters = names.flatMap((name) => ['--filter', name])
  const { stdout } = await promisify(execFile)(
    'npx',
    [...PNPM, '--recursive', ...filters, 'pack', '--pack-destination', resolve(destination), '--json'],
    { cwd: ROOT, env: plainEnv(), timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
  )
  const parsed = JSON.parse(stdout)
  const tarballs = new Map((Array.isArray(parsed) ? parsed : [parsed]).map((p) => [p.name, p.filename]))
  const missing = names.filter((name) => !tarballs.has(name))
  if (missing.length > 0) throw new Error(`pnpm pack did not pack ${missing.join(', ')}:\n${stdout}`)
  return tarballs
}

async function main() {
  const names = publicPackages()
  if (!process.argv.includes('--no-build')) {
    console.log(`Building ${names.length} packages ...`)
    await buildPackages(names)
  }
  const destination = join(ROOT, 'packed')
  rmSync(destination, { recursive: true, force: true })
  const tarballs = await packPackages(names, destination)
  const relative = (name) => `packed/${tarballs.get(name).slice(destination.length + 1)}`
  console.log(`Packed ${tarballs.size} packages into packed/:`)
  for (const name of tarballs.keys()) console.log(`  ${relative(name)}`)
  console.log(
    '\nInstall them into an app with @floodgate/core beside them (docs/installing.md), for instance:',
  )
  console.log(
    `  npm install <this clone>/${relative('@floodgate/core')} <this clone>/${relative('@floodgate/express')} express`,
  )
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error) => {
    console.error(error.stderr || error.message || error)
    process.exit(1)
  })
}

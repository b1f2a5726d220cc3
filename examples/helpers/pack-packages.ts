// Packs the workspace's `@floodgate/*` packages the way they are published (`pnpm pack`: what `files` lists,
// with `workspace:*` dependencies rewritten to the version), so that an example copied out of the repository
// can install them with plain npm.
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { plainEnv } from './processes.js'
import { ROOT, requireBuiltPackages } from './start-example.js'

const PNPM = ['-y', 'pnpm@12.4.2']

interface WorkspacePackage {
  dependencies: Record<string, string>
  peerDependencies: Record<string, string>
  private: boolean
}

/** The packages in `packages/`, by name. */
function workspacePackages(): Map<string, WorkspacePackage> {
  const found = new Map<string, WorkspacePackage>()
  for (const entry of readdirSync(join(ROOT, 'packages'), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue
    const dir = join(ROOT, 'packages', entry.name)
    let pkg: Record<string, any>
    try {
      pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'))
    } catch {
      continue
    }
    found.set(pkg.name, {
      dependencies: pkg.dependencies ?? {},
      peerDependencies: pkg.peerDependencies ?? {},
      private: pkg.private === true,
    })
  }
  return found
}

const floodgateNames = (deps: Record<string, string>) =>
  Object.keys(deps).filter((name) => name.startsWith('@floodgate/'))

/**
 * `names` and every `@floodgate/*` package they depend on (dependencies and peers), transitively. Throws for a
 * name that is not a publishable workspace package: an example cannot depend on one.
 */
export function withFloodgateDependencies(names: Iterable<string>): string[] {
  const packages = workspacePackages()
  const seen = new Set<string>()
  const visit = (name: string, neededBy: string) => {
    if (seen.has(name)) return
    const pkg = packages.get(name)
    if (!pkg) throw new Error(`${neededBy} depends on ${name}, which is not a package in packages/.`)
    if (pkg.private) throw new Error(`${neededBy} depends on ${name}, which is private and never published.`)
    seen.add(name)
    for (const dep of floodgateNames({ ...pkg.dependencies, ...pkg.peerDependencies })) visit(dep, name)
  }
  for (const name of names) visit(name, 'an example')
  return [...seen].sort()
}

/** `@floodgate/*` dependencies of a package.json's `dependencies` and `devDependencies`. */
export function floodgateDependencies(pkg: Record<string, any>): string[] {
  return floodgateNames({ ...pkg.dependencies, ...pkg.devDependencies })
}

interface Packed {
  name: string
  filename: string
}

/** Pack the packages into `destination` with one pnpm run; the tarball's path by package name. */
export async function packPackages(
  names: readonly string[],
  destination: string,
): Promise<Map<string, string>> {
  requireBuiltPackages(names, "Packing the copied examples' dependencies")
  const filters = names.flatMap((name) => ['--filter', name])
  const { stdout } = await promisify(execFile)(
    'npx',
    [...PNPM, '--recursive', ...filters, 'pack', '--pack-destination', destination, '--json'],
    { cwd: ROOT, env: plainEnv(), timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
  )
  const parsed = JSON.parse(stdout) as Packed | Packed[]
  const packed = Array.isArray(parsed) ? parsed : [parsed]
  const tarballs = new Map(packed.map(({ name, filename }) => [name, filename]))
  const missing = names.filter((name) => !tarballs.has(name))
  if (missing.length > 0) throw new Error(`pnpm pack did not pack ${missing.join(', ')}:\n${stdout}`)
  return tarballs
}

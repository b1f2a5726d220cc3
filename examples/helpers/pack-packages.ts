// Which `@floodgate/*` packages an example needs, to pack them the way they are published (`npm run pack`'s
// `packPackages`: what `files` lists, with `workspace:*` dependencies rewritten to the version), so that an
// example copied out of the repository can install them with plain npm.
import { packPackages, workspacePackages } from '../../scripts/pack.mjs'

export { packPackages }

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
    if (!pkg) throw new Error(`${neededBy} depends on ${name}, which is not a package of the workspace.`)
    if (pkg.private) throw new Error(`${neededBy} depends on ${name}, which is private and never published.`)
    seen.add(name)
    for (const dep of pkg.floodgateDependencies) visit(dep, name)
  }
  for (const name of names) visit(name, 'an example')
  return [...seen].sort()
}

/** `@floodgate/*` dependencies of a package.json's `dependencies` and `devDependencies`. */
export function floodgateDependencies(pkg: Record<string, any>): string[] {
  return floodgateNames({ ...pkg.dependencies, ...pkg.devDependencies })
}

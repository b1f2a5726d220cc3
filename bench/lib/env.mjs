import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The bench/ folder and the repository root, whatever the working directory. */
export const benchDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const repoRoot = path.resolve(benchDir, '..')
export const resultsDir = path.join(benchDir, 'results')
export const suitesDir = path.join(benchDir, 'suites')

/** What the numbers were measured on. */
export function machine() {
  const cpus = os.cpus()
  return {
    date: new Date().toISOString(),
    node: process.version,
    v8: process.versions.v8,
    cpu: cpus[0]?.model?.trim() ?? 'unknown',
    cores: cpus.length,
    platform: `${os.platform()} ${os.release()} ${os.arch()}`,
    totalMemGB: Math.round(os.totalmem() / 2 ** 30),
    loadavg: os.loadavg().map((l) => Math.round(l * 100) / 100),
  }
}

/** The command line of this process, relative to the repository root, as a reader would retype it. */
export function commandLine(argv = process.argv, execArgv = process.execArgv) {
  const script = path.relative(repoRoot, argv[1] ?? '') || argv[1]
  return ['node', ...execArgv, script, ...argv.slice(2)].join(' ')
}

/**
 * Which build of a workspace package a suite measured: its version, a hash of its built entry point (so a
 * rebuild during the run shows), the commit, and whether its sources differ from that commit.
 */
export function buildOf(pkg = '@floodgate/core') {
  const git = (...args) => {
    try {
      return execFileSync('git', args, {
        cwd: repoRoot,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim()
    } catch {
      return undefined
    }
  }
  try {
    const entry = fs.realpathSync(fileURLToPath(import.meta.resolve(pkg))) // the ESM entry suites import
    const pkgDir = path.resolve(path.dirname(entry), '..')
    const { version } = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8'))
    const dirty = git('status', '--porcelain', '--', path.join(pkgDir, 'src'))
    return {
      package: pkg,
      version,
      entry: path.relative(repoRoot, entry),
      sha256: createHash('sha256').update(fs.readFileSync(entry)).digest('hex').slice(0, 12),
      builtAt: fs.statSync(entry).mtime.toISOString(),
      commit: git('rev-parse', '--short', 'HEAD'),
      sourcesModified: dirty === undefined ? undefined : dirty.length > 0,
    }
  } catch (error) {
    return { package: pkg, error: String(error) }
  }
}

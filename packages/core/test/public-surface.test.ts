// What `@floodgate/core` exports is what its users write, each name documented; the plumbing Floodgate's own
// packages share is `@floodgate/core/internal`, each name of it used by one of them. A name added to
// src/index.ts (a plumbing name back on the public surface, say) fails here until it is in the lists below
// and in the docs; a name of src/internal.ts no other package uses fails until it goes.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import * as core from '../src/index.js'
import * as internal from '../src/internal.js'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..')
const CORE = join(ROOT, 'packages/core')

/** The runtime names of `@floodgate/core`. */
const RUNTIME = [
  'DegradationError',
  'MemoryStore',
  'RateLimitConfigError',
  'RateLimitCostError',
  'RateLimitRequestError',
  'calendarQuota',
  'concurrency',
  'createLimiter',
  'eventLoopDelaySignal',
  'fixedWindow',
  'gcra',
  'leakyBucket',
  'slidingWindowCounter',
  'slidingWindowLog',
  'step',
  'tokenBucket',
]

/** Its types: the options a user writes, what they read back, what a store of their own implements. */
const TYPES = [
  'Algorithm',
  'Answer',
  'BanOptions',
  'ConsumeItem',
  'Decision',
  'DegradationErrorCode',
  'Duration',
  'FailMode',
  'KeySpec',
  'Limiter',
  'LimiterOptions',
  'MemoryStoreOptions',
  'MetricsSink',
  'Outcome',
  'OverrideEntry',
  'Overrides',
  'PlanOptions',
  'PolicyOptions',
  'PolicyUsage',
  'RateLimitErrorCode',
  'RateLimitOptions',
  'RateLimitRequestErrorCode',
  'RequestInfo',
  'RequestRateLimit',
  'RequestSlowDown',
  'Store',
  'Unban',
  'Usage',
  'UsageReport',
]

/** The most names the public entry may have, types included. */
const MAX_PUBLIC_NAMES = 45

const sorted = (names: Iterable<string>) => [...names].sort()

/** Every name a module exports, types included, as the TypeScript checker sees them. */
const exportsOf = (file: string) => exported.get(file) ?? exported.set(file, readExports(file)).get(file)!
const exported = new Map<string, { name: string; runtime: boolean }[]>()

function readExports(file: string): { name: string; runtime: boolean }[] {
  const program = ts.createProgram([file], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  })
  const checker = program.getTypeChecker()
  const module = checker.getSymbolAtLocation(program.getSourceFile(file)!)!
  return checker.getExportsOfModule(module).map((symbol) => {
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol
    return { name: symbol.name, runtime: (target.flags & ts.SymbolFlags.Value) !== 0 }
  })
}

/** The code in the README and docs/*.md: fenced blocks and `inline` spans, where an API name is written. */
function documentedCode(): string {
  const files = [
    join(ROOT, 'README.md'),
    ...readdirSync(join(ROOT, 'docs'))
      .filter((name) => name.endsWith('.md'))
      .map((name) => join(ROOT, 'docs', name)),
  ]
  let code = ''
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    for (const [, block] of text.matchAll(/```[^\n]*\n([\s\S]*?)```/g)) code += `${block}\n`
    for (const [, span] of text.replace(/```[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)) code += `${span}\n`
  }
  return code
}

const words = (text: string) => new Set(text.match(/[A-Za-z_$][\w$]*/g))

describe('@floodgate/core', () => {
  const names = exportsOf(join(CORE, 'src/index.ts'))

  it('exports these runtime names, no other', () => {
    expect(sorted(Object.keys(core))).toEqual(sorted(RUNTIME))
  })

  it('exports these names, types included, and no more than the limit', () => {
    expect(sorted(names.map((n) => n.name))).toEqual(sorted([...RUNTIME, ...TYPES]))
    expect(sorted(names.filter((n) => n.runtime).map((n) => n.name))).toEqual(sorted(RUNTIME))
    expect(names.length).toBeLessThanOrEqual(MAX_PUBLIC_NAMES)
  })

  it('documents every name it exports, in the README or docs/', () => {
    const documented = words(documentedCode())
    expect(names.map((n) => n.name).filter((name) => !documented.has(name))).toEqual([])
  })

  it('shares no name with @floodgate/core/internal', () => {
    const plumbing = new Set(exportsOf(join(CORE, 'src/internal.ts')).map((n) => n.name))
    expect(names.map((n) => n.name).filter((name) => plumbing.has(name))).toEqual([])
  })
})

const INTERNAL = '@floodgate/core/internal'

/** Whether `node` holds an `import('@floodgate/core/internal')`. */
const importsInternal = (node: ts.Node): boolean =>
  (ts.isCallExpression(node) &&
    node.expression.kind === ts.SyntaxKind.ImportKeyword &&
    ts.isStringLiteral(node.arguments[0]!) &&
    node.arguments[0].text === INTERNAL) ||
  ts.forEachChild(node, importsInternal) === true

/**
 * The names of `@floodgate/core/internal` a file uses: `import { name }`, `export { name }`, `const { name } =
 * await import(...)`, and `ns.name` on a namespace import or on a variable holding the module.
 */
function internalNamesIn(file: string, text: string, used: Set<string>): void {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const modules = new Set<string>()
  const declarations = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (!ts.isStringLiteral(node.moduleSpecifier) || node.moduleSpecifier.text !== INTERNAL) return
      const bindings = ts.isImportDeclaration(node) ? node.importClause?.namedBindings : node.exportClause
      if (bindings && ts.isNamespaceImport(bindings)) modules.add(bindings.name.text)
      else if (bindings && !ts.isNamespaceExport(bindings))
        for (const e of bindings.elements) used.add((e.propertyName ?? e.name).getText(source))
    } else if (ts.isVariableDeclaration(node) && node.initializer && importsInternal(node.initializer)) {
      if (ts.isIdentifier(node.name)) modules.add(node.name.text)
      else if (ts.isObjectBindingPattern(node.name))
        for (const e of node.name.elements) used.add((e.propertyName ?? e.name).getText(source))
    }
    ts.forEachChild(node, declarations)
  }
  const accesses = (node: ts.Node): void => {
    if (
      ts.isPropertyAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      modules.has(node.expression.text)
    )
      used.add(node.name.text)
    ts.forEachChild(node, accesses)
  }
  declarations(source)
  accesses(source)
}

/** The names of `@floodgate/core/internal` that another package (or an example, or the bench) uses. */
function usedInternalNames(): Set<string> {
  const used = new Set<string>()
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (name === 'node_modules' || name === 'dist' || name.startsWith('.') || path === CORE) continue
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.(ts|tsx|mts|mjs|js)$/.test(name)) {
        const text = readFileSync(path, 'utf8')
        if (text.includes(INTERNAL)) internalNamesIn(path, text, used)
      }
    }
  }
  for (const dir of ['packages', 'examples', 'bench']) walk(join(ROOT, dir))
  return used
}

describe('@floodgate/core/internal', () => {
  it('exports only what another package of the repository uses', () => {
    const used = usedInternalNames()
    const names = exportsOf(join(CORE, 'src/internal.ts')).map((n) => n.name)
    expect(names.filter((name) => !used.has(name))).toEqual([])
  })

  it('has every runtime name its types promise', () => {
    for (const n of exportsOf(join(CORE, 'src/internal.ts')).filter((e) => e.runtime))
      expect(internal, n.name).toHaveProperty(n.name)
  })
})

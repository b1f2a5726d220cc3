// No doc or example recommends a setting Floodgate warns about or refuses: every TypeScript or JavaScript
// block in docs/, README.md and the examples' READMEs that builds a limiter is compiled, run through the built
// packages (in one child process, `doc-blocks-runner.mjs`), and must raise no Floodgate warning and throw no
// error. Names a block uses without defining them (`app`, `login`, `db`) get stand-ins that accept any use, so
// the limiter-building calls run as written. Needs the built packages (`npm test` builds first).
import { execFile } from 'node:child_process'
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { ROOT } from './start-example.js'

interface Block {
  file: string
  line: number
  code: string
}

/** A call that builds a limiter, a middleware or an algorithm. */
const BUILDS_A_LIMITER =
  /\b(rateLimit|createLimiter|slidingWindowCounter|fixedWindow|slidingWindowLog|tokenBucket|leakyBucket|gcra|calendarQuota|priorityQueue|loadShedder|slowDown)\s*[(,]/

/** Blocks that cannot run here, by `file:line` of their opening fence, and where what they show is run. */
const RUN_ELSEWHERE: Record<string, string> = {
  'docs/postgres.md:21': "migrates the database it is given: packages/postgres's tests run the same calls",
}

/** A block that is a test file (it imports vitest) runs only under vitest: the guides' other blocks hold its options. */
const IS_A_TEST = /from ['"]vitest['"]/

function blocksOf(file: string): Block[] {
  const blocks: Block[] = []
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n')
  for (let i = 0; i < lines.length; i++) {
    const opening = /^```(ts|typescript|js|javascript|mjs)\s*$/.exec(lines[i]!)
    if (!opening) continue
    const start = i
    while (++i < lines.length && !/^```\s*$/.test(lines[i]!));
    const code = lines.slice(start + 1, i).join('\n')
    if (BUILDS_A_LIMITER.test(code)) blocks.push({ file, line: start + 1, code })
  }
  return blocks
}

const markdown = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
  ...readdirSync(join(ROOT, 'examples'))
    .filter((name) => !name.startsWith('.'))
    .map((name) => `examples/${name}/README.md`)
    .filter((file) => {
      try {
        readFileSync(join(ROOT, file))
        return true
      } catch {
        return false
      }
    }),
].sort()

const blocks = markdown
  .flatMap(blocksOf)
  .filter((b) => !(`${b.file}:${b.line}` in RUN_ELSEWHERE) && !IS_A_TEST.test(b.code))

/**
 * A `node_modules` for the blocks: a link to every package the workspace's bench and examples install (the
 * built `@floodgate/*` packages, the frameworks, the clients), so a block imports what a user's app would.
 */
function linkPackages(dir: string): void {
  const modules = join(dir, 'node_modules')
  const sources = [
    'bench',
    'packages/adapter-suite',
    ...readdirSync(join(ROOT, 'examples')).map((e) => `examples/${e}`),
  ]
  for (const source of sources) {
    const from = join(ROOT, source, 'node_modules')
    if (!existsSync(from)) continue
    for (const entry of readdirSync(from)) {
      if (entry.startsWith('.')) continue
      const names = entry.startsWith('@')
        ? readdirSync(join(from, entry)).map((n) => `${entry}/${n}`)
        : [entry]
      for (const name of names) {
        const link = join(modules, name)
        if (existsSync(link)) continue
        mkdirSync(dirname(link), { recursive: true })
        symlinkSync(realpathSync(join(from, name)), link)
      }
    }
  }
}

interface Result {
  block: string
  warnings: { code: string; message: string }[]
  error?: string
}

describe('docs and examples recommend nothing Floodgate warns about', () => {
  it('finds the limiter-building blocks', () => {
    expect(blocks.length).toBeGreaterThan(40)
    expect(blocks.map((b) => b.file)).toEqual(
      expect.arrayContaining(['README.md', 'docs/fastify.md', 'docs/express.md']),
    )
  })

  it('the harness sees a warning and an error when a block has them', async () => {
    const results = await runBlocks([
      {
        file: 'a warning',
        line: 1,
        code: "import { slidingWindowCounter } from '@floodgate/core'\nslidingWindowCounter({ limit: 5, window: 60 })",
      },
      {
        file: 'an error',
        line: 1,
        code: "import { rateLimit } from '@floodgate/express'\napp.use(rateLimit({ windowMs: 60000 }))",
      },
    ])
    expect(results[0]!.warnings.map((w) => w.code)).toEqual(['ERR_FLOODGATE_WINDOW_IN_MS'])
    expect(results[1]!.error).toMatch(/RateLimitConfigError: .*`windowMs` is express-rate-limit's/)
  }, 150_000)

  it('every limiter-building block runs through the built packages with no warning and no error', async () => {
    const results = await runBlocks(blocks)
    const problems = results
      .map((result, index) => {
        const block = blocks[index]!
        const said = [
          ...result.warnings.map((w) => `warns ${w.code}: ${w.message}`),
          ...(result.error ? [result.error] : []),
        ]
        return said.length === 0 ? undefined : `${block.file}:${block.line}\n  ${said.join('\n  ')}`
      })
      .filter((problem) => problem !== undefined)
    expect(problems, problems.join('\n\n')).toEqual([])
  }, 150_000)
})

/** Compile the blocks and run them in one child process, in order; what each raised and threw. */
async function runBlocks(list: readonly Block[]): Promise<Result[]> {
  const dir = await mkdtemp(join(tmpdir(), 'floodgate-doc-blocks-'))
  try {
    linkPackages(dir)
    list.forEach((block, index) => {
      const { outputText } = ts.transpileModule(block.code, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
      })
      // `export {}` makes every block a module, so top-level await and its own scope work
      writeFileSync(join(dir, `block-${index}.mjs`), `${outputText}\nexport {}\n`)
    })
    copyFileSync(join(ROOT, 'examples', 'helpers', 'doc-blocks-runner.mjs'), join(dir, 'runner.mjs'))
    const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'runner.mjs'), dir], {
      cwd: dir,
      timeout: 120_000,
      maxBuffer: 16 * 1024 * 1024,
    })
    const results: Result[] = stdout
      .split('\n')
      .filter((line) => line.startsWith('{"block"'))
      .map((line) => JSON.parse(line))
    expect(results).toHaveLength(list.length)
    return results
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

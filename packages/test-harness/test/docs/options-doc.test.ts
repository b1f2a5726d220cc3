// The options are documented once, in docs/options.md, and their defaults are written once, in the schema:
// this checks the table and the TSDoc `@default` tags against the schema, so neither can drift.
import { readFileSync } from 'node:fs'
import { RATE_LIMIT_DEFAULTS, rateLimitOptionsSchema } from '@floodgate/core/internal'
import { describe, expect, it } from 'vitest'

const root = new URL('../../../../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')

/** A default as the docs write it: `'1m'`, `100`, `false`, `[]`, `{ maxKeys: 10000, ttl: '1m' }`. */
const literal = (value: unknown): string => {
  if (typeof value === 'string') return `'${value}'`
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    return `{ ${Object.entries(value)
      .map(([k, v]) => `${k}: ${literal(v)}`)
      .join(', ')} }`
  }
  return JSON.stringify(value)
}

function table(markdown: string): Map<string, string> {
  const rows = new Map<string, string>()
  for (const line of markdown.split('\n')) {
    const match = /^\| `(\w+)` \| ([^|]*) \|/.exec(line)
    if (match) rows.set(match[1]!, match[2]!.trim())
  }
  return rows
}

describe('docs/options.md', () => {
  const doc = read('docs/options.md')
  const rows = table(doc.slice(0, doc.indexOf('\n## ')))

  it('lists every option of the schema, and no other', () => {
    expect([...rows.keys()].sort()).toEqual(Object.keys(rateLimitOptionsSchema.shape).sort())
  })

  it.each(Object.entries(RATE_LIMIT_DEFAULTS))(
    'writes the default of `%s` as the schema applies it',
    (option, value) => {
      expect(rows.get(option)).toBe(`\`${literal(value)}\``)
    },
  )

  it('the adapter guides link to it instead of repeating the table', () => {
    for (const guide of ['express', 'fastify', 'koa']) {
      const text = read(`docs/${guide}.md`)
      expect(text, guide).toContain('(options.md)')
      expect(table(text).size, `${guide} has an options table of its own`).toBeLessThan(3)
    }
  })
})

describe('TSDoc @default tags', () => {
  // The options are declared across these files, one concern each.
  const body = ['types', 'plan-options', 'response-options']
    .map((file) => read(`packages/core/src/http/options/${file}.ts`))
    .join('\n')
  it.each(Object.entries(RATE_LIMIT_DEFAULTS))(
    '`%s` has `@default` equal to the schema’s',
    (option, value) => {
      const member = new RegExp(
        `@default ([^\\n]*)\\n(?:\\s*\\*[^\\n]*\\n)*?\\s*\\*/\\n\\s*${option}\\?:`,
      ).exec(body)
      expect(member, `no @default tag on ${option}`).not.toBeNull()
      expect(member![1]!.trim()).toBe(literal(value))
    },
  )
})

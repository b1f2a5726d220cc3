// docs/testing.md shows its code as the files that run it: every block headed ```ts <path> is that file of the
// repository, verbatim, so the store written there is the one that passes the suite (map-store.test.ts) and the
// app tests are the ones examples/app-tests runs.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const root = new URL('../../../../', import.meta.url)
const read = (path: string) => readFileSync(new URL(path, root), 'utf8')
const blocks = [...read('docs/testing.md').matchAll(/^```ts (\S+)\n([\s\S]*?)^```$/gm)].map((m) => ({
  path: m[1]!,
  code: m[2]!,
}))

describe('docs/testing.md', () => {
  it('shows the store, its test and the app tests, each from its file', () => {
    expect(blocks.map((b) => b.path)).toEqual([
      'packages/testing/test/docs/map-store.ts',
      'packages/testing/test/docs/map-store.test.ts',
      'examples/app-tests/express.test.ts',
      'examples/app-tests/fastify.test.ts',
      'examples/app-tests/koa.test.ts',
    ])
  })

  it.each(blocks)('shows $path as it is', ({ path, code }) => {
    expect(code).toBe(read(path))
  })
})

// A key cut from a large string (a header's token, a message's first bytes) must not keep that string alive
// in the MemoryStore: V8 makes such a cut a view of the whole original. Measured in a child process of its
// own with --expose-gc, on the built package, so the garbage collector can be asked to run.
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dist = new URL('../dist/index.js', import.meta.url).href

const probe = (how: string) => `
import { fixedWindow, MemoryStore } from ${JSON.stringify(dist)}
const algorithm = fixedWindow({ limit: 10, window: '1h' })
const store = new MemoryStore()
gc()
const before = process.memoryUsage().heapUsed
for (let i = 0; i < 500; i++) {
  const header = 'Bearer ' + String(i).padStart(40, '0') + 'x'.repeat(65536)
  const key = ${how}
  store.consume(algorithm, key, 1)
}
gc()
console.log(String(process.memoryUsage().heapUsed - before))
`

const retained = (how: string) =>
  Number(
    execFileSync(process.execPath, ['--expose-gc', '--input-type=module', '-e', probe(how)], {
      cwd: fileURLToPath(new URL('.', import.meta.url)),
      encoding: 'utf8',
    }).trim(),
  )

describe('MemoryStore keys cut from large strings', () => {
  it('keep their own characters only: 500 keys sliced from 64 KB strings hold under 4 MB, not 32 MB', () => {
    expect(retained('header.slice(7, 47)')).toBeLessThan(4 * 1024 * 1024)
    expect(retained("header.split('x')[0]")).toBeLessThan(4 * 1024 * 1024)
    expect(retained("'ip{' + header.slice(7, 47) + '}'")).toBeLessThan(4 * 1024 * 1024)
  })
})

import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cachedClock } from '../src/internal.js'

describe('cachedClock', () => {
  it('reads its source at most once per 256 decisions within one synchronous burst', () => {
    let reads = 0
    let wall = 1_000
    const clock = cachedClock(() => {
      reads++
      return wall
    })
    expect(clock()).toBe(1_000)
    wall = 1_005
    for (let i = 0; i < 255; i++) expect(clock()).toBe(1_000)
    expect(clock()).toBe(1_005) // the 257th call reads again: a long burst still sees time move
    expect(reads).toBe(2)
    clock.stop()
  })

  it('reads afresh after stop(), and after a quiet spell', () => {
    let wall = 0
    const clock = cachedClock(() => wall)
    clock()
    wall = 50
    clock.stop()
    expect(clock()).toBe(50)
    clock.stop()
  })

  it('never keeps the process alive', () => {
    const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url))
    const script = `import(${JSON.stringify(entry)}).then(async (m) => {
      const limiter = m.createLimiter({ algorithm: m.fixedWindow({ limit: 5, window: '1h' }) })
      await limiter.consume('k')
      console.log('done')
    })`
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 15_000,
    })
    expect(result.stdout.trim()).toBe('done')
    expect(result.status).toBe(0) // a timer that held the process open would end in a timeout (status null)
  })
})

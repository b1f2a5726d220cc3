// The built package from plain Node: both entries, as ESM and as CommonJS (the test harness checks the main one too).
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dir = fileURLToPath(new URL('..', import.meta.url))
const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: dir, encoding: 'utf8' }).trim()
const keys = 'JSON.stringify(Object.keys(m).filter((k) => k !== "default" && k !== "__esModule").sort())'

describe.each(['@floodgate/client', '@floodgate/client/undici'])('%s from dist', (specifier) => {
  it('imports as ESM and requires as CommonJS, with the same exports', () => {
    expect(existsSync(`${dir}/dist`), 'build first: npx tsup').toBe(true)
    const esm = node([
      '--input-type=module',
      '-e',
      `const m = await import('${specifier}'); console.log(${keys})`,
    ])
    const cjs = node(['-e', `const m = require('${specifier}'); console.log(${keys})`])
    expect(JSON.parse(esm).length).toBeGreaterThan(0)
    expect(JSON.parse(cjs)).toEqual(JSON.parse(esm))
  })
})

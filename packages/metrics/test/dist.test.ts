// The built package from plain Node: every entry, as ESM and as CommonJS, and each binding loading only its
// own peer (importing the Prometheus binding never loads @opentelemetry/api, nor the other way round).
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const dir = fileURLToPath(new URL('..', import.meta.url))
const node = (args: string[]) => execFileSync(process.execPath, args, { cwd: dir, encoding: 'utf8' }).trim()
const keys = 'JSON.stringify(Object.keys(m).filter((k) => k !== "default" && k !== "__esModule").sort())'

describe.each([
  ['@floodgate/metrics', []],
  ['@floodgate/metrics/prometheus', ['prometheus']],
  ['@floodgate/metrics/opentelemetry', ['histogramProducer', 'openTelemetry']],
] as const)('%s from dist', (specifier, named) => {
  it('imports as ESM and requires as CommonJS, with the same exports', () => {
    expect(existsSync(`${dir}/dist`), 'build first: npx tsup').toBe(true)
    const esm = JSON.parse(
      node(['--input-type=module', '-e', `const m = await import('${specifier}'); console.log(${keys})`]),
    )
    const cjs = JSON.parse(node(['-e', `const m = require('${specifier}'); console.log(${keys})`]))
    expect(cjs).toEqual(esm)
    expect(esm).toEqual(expect.arrayContaining([...named]))
  })
})

it('each binding needs its own peer only', () => {
  const peersLoaded = (specifier: string) =>
    JSON.parse(
      node([
        '-e',
        `require('${specifier}'); console.log(JSON.stringify([...new Set(Object.keys(require.cache).flatMap((p) => p.match(/node_modules[\\\\/](prom-client|@opentelemetry[\\\\/]api)[\\\\/]/)?.[1].replace('\\\\', '/') ?? []))]))`,
      ]),
    ) as string[]
  // prom-client itself requires @opentelemetry/api (for exemplars); the binding's own code never does.
  expect(peersLoaded('@floodgate/metrics/prometheus')).toContain('prom-client')
  expect(peersLoaded('@floodgate/metrics/opentelemetry')).toEqual(['@opentelemetry/api'])
  expect(peersLoaded('@floodgate/metrics')).toEqual([])
  const source = (file: string) => readFileSync(`${dir}/dist/${file}`, 'utf8')
  for (const format of ['js', 'cjs']) {
    expect(source(`prometheus.${format}`)).not.toContain('@opentelemetry/api')
    expect(source(`opentelemetry.${format}`)).not.toContain('prom-client')
  }
})

// Runs the docs' limiter-building code blocks, already compiled to `.mjs` files in the folder given, one after
// another in this process, and prints one JSON line per block: the Floodgate warnings it raised and the error
// it threw, if any. This file is copied beside the blocks, whose `node_modules` links to the built packages and
// the frameworks. A name a block uses without defining it (`app`, `login`, `db`) is
// given a stand-in that accepts any use, and the block is run again.
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { forgetRaisedWarnings } from '@floodgate/core/internal'

/** A value that accepts any property, call or `new`, and is never a promise. */
function anything() {
  const target = function standIn() {}
  return new Proxy(target, {
    get: (_t, property) =>
      property === 'then' ? undefined : property === Symbol.toPrimitive ? () => 'stand-in' : anything(),
    apply: () => anything(),
    construct: () => anything(),
  })
}

/** What a name means where a stand-in that accepts any use is not enough: Floodgate checks what it is given. */
async function standIn(name) {
  if (name === 'Redis') return (await import('ioredis')).default
  if (name === 'register') return new (await import('prom-client')).Registry()
  if (name === 'meter') return (await import('@opentelemetry/api')).metrics.getMeter('docs')
  return anything()
}

const captured = []
const emitWarning = process.emitWarning.bind(process)
process.emitWarning = (message, options) => {
  if (options?.type === 'FloodgateWarning') captured.push({ code: options.code, message: String(message) })
  else emitWarning(message, options)
}

// what a block leaves running fails later (a Fastify plugin registers when the app is ready): its block's error
let late
const onLate = (thrown) => {
  late ??= `${thrown?.name}: ${thrown?.message}`
}
process.on('unhandledRejection', onLate)
process.on('uncaughtException', onLate)

const dir = process.argv[2]
const blocks = readdirSync(dir)
  .filter((name) => /^block-\d+\.mjs$/.test(name))
  .sort((a, b) => Number(a.match(/\d+/)[0]) - Number(b.match(/\d+/)[0]))
for (const name of blocks) {
  forgetRaisedWarnings()
  captured.length = 0
  let error
  late = undefined
  for (let attempt = 0; ; attempt++) {
    try {
      await import(`${pathToFileURL(join(dir, name))}?attempt=${attempt}`)
      error = undefined
      break
    } catch (thrown) {
      const missing = /^(\w+) is not defined$/.exec(thrown?.message ?? '')
      if (thrown instanceof ReferenceError && missing && attempt < 30) {
        globalThis[missing[1]] = await standIn(missing[1])
        continue
      }
      error = `${thrown?.name}: ${thrown?.message}`
      break
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 50))
  console.log(JSON.stringify({ block: name, warnings: [...captured], error: error ?? late }))
}
process.exit(0)

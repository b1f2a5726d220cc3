// Runs an example on the older framework majors: `node --import ../helpers/older-majors.mjs server.mjs` gives
// the example Express 4 where it imports `express`, and Koa 2 where it imports `koa`: the examples' tests run
// each example on every supported major with no copy of its code. The older majors are installed beside the
// current ones as `express4` and `koa2` (npm aliases in the example's devDependencies).
import { register } from 'node:module'
import { isMainThread } from 'node:worker_threads'

const OLDER = { express: 'express4', koa: 'koa2' }

// Imported with --import, this module registers itself as the loader's hooks (which run on a thread of their own).
if (isMainThread) register(import.meta.url)

/**
 * The loader's resolve hook: `express` and `koa` resolve to their older majors, from the importing module. Each
 * one it swaps is told on stderr once (`older major: express is express4`), so a test can check it ran.
 */
const told = new Set()
export function resolve(specifier, context, nextResolve) {
  if (!Object.hasOwn(OLDER, specifier)) return nextResolve(specifier, context)
  if (!told.has(specifier)) {
    told.add(specifier)
    process.stderr.write(`older major: ${specifier} is ${OLDER[specifier]}\n`)
  }
  return nextResolve(OLDER[specifier], context)
}

// CPU instructions per decision, counted by valgrind's callgrind (the same count whatever else the machine
// is doing), for the memory suite's loops:
//
//   node bench/suites/memory/count.mjs decide-loop.mjs <store> <hot|keys>
//   node bench/suites/memory/count.mjs handle-loop.mjs <path to core's index.js> [addresses]
//   node bench/suites/memory/count.mjs handle-overrides-loop.mjs <path to core's index.js> <none|miss|exact|wildcard>
import { fileURLToPath } from 'node:url'
import { hasValgrind, instructionsPerOperation } from '../../lib/instructions.mjs'

const [loop, ...args] = process.argv.slice(2)
if (!hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
const script = fileURLToPath(new URL(loop, import.meta.url))
const perDecision = instructionsPerOperation(script, args, { small: 100_000, large: 300_000 })
console.log(`${loop} ${args.join(' ')}: ${Math.round(perDecision)} instructions per decision`)

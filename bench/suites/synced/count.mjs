// CPU instructions per decision, counted by valgrind's callgrind (the same count whatever else the machine is
// doing), of the SyncedStore against the MemoryStore in the synced suite's loop (decide-loop.mjs beside it, which
// says what is counted), on one key and on 1,000 keys round robin, the SyncedStore's keys read from a private
// redis-server this script starts:
//
//   node bench/suites/synced/count.mjs                 every store and key count
//   node bench/suites/synced/count.mjs synced 1000     one of them
//
// Imports the built packages: build first (`npx turbo run build`). FLOODGATE_REDIS=<path to an index.js> counts
// another build of @floodgate/redis (the before of a change).
import { fileURLToPath } from 'node:url'
import { hasValgrind, instructionsPerOperation } from '../../lib/instructions.mjs'
import { startPrivateRedis } from '../../lib/redis-server.mjs'

/** Instructions per decision of each store (`memory`, `synced`) on each key count, with the ratio synced/memory. */
export async function countSynced({ stores = ['memory', 'synced'], keySets = [1, 1000] } = {}) {
  if (!hasValgrind()) throw new Error('valgrind is not installed: apt-get install -y valgrind')
  const redis = await startPrivateRedis()
  if (!redis) throw new Error('no redis-server could be started (apt-get install redis-server)')
  const script = fileURLToPath(new URL('decide-loop.mjs', import.meta.url))
  const counts = {}
  try {
    for (const size of keySets) {
      counts[size] = {}
      for (const store of stores) {
        counts[size][store] = instructionsPerOperation(script, [store, String(size), String(redis.port)], {
          small: 50_000,
          large: 150_000,
        })
      }
    }
  } finally {
    await redis.stop()
  }
  return counts
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [store, size] = process.argv.slice(2)
  const counts = await countSynced(store ? { stores: [store], keySets: [Number(size ?? 1000)] } : undefined)
  for (const [size, row] of Object.entries(counts)) {
    const cells = Object.entries(row).map(([id, n]) => `${id} ${Math.round(n)}`)
    const ratio = row.memory && row.synced ? `  synced/memory ${(row.synced / row.memory).toFixed(2)}x` : ''
    console.log(`${size} key(s): ${cells.join(', ')} instructions per decision${ratio}`)
  }
}

/**
 * The Redis behind the suite's Redis rows. A redis-server the suite starts for itself when it can (no
 * persistence, as the shared one runs), so that what Redis does during a slice (its CPU, its commands) is that
 * slice's requests' alone; else the shared Redis of the settings (Redis CPU is then not measured: other work
 * shares it); else none (the Redis rows are skipped).
 */
import { readRedisUsage, startPrivateRedis } from '../../lib/redis-server.mjs'
import { log } from './log.mjs'

async function connect({ host, port }) {
  const { Redis } = await import('ioredis')
  const client = new Redis({
    host,
    port,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
  })
  await client.connect()
  await client.ping()
  return client
}

/**
 * Resolves with `{ host, port, own, version, usage, deleteKeys(prefix), close() }`, or undefined when no
 * Redis can be reached. `own` says whether the suite started it; `usage()` (only then) reads its counters.
 */
export async function openRedisTarget({ host, port }) {
  const own = await startPrivateRedis()
  if (!own) log(`no redis-server could be started: the Redis rows use ${host}:${port}, without Redis CPU`)
  const where = own ?? { host, port }
  let client
  try {
    client = await connect(where)
  } catch (error) {
    await own?.stop()
    log(`Redis at ${where.host}:${where.port} unreachable (${error.message}): Redis rows skipped`)
    return undefined
  }
  const server = await client.call('INFO', 'server')
  return {
    host: where.host,
    port: where.port,
    own: Boolean(own),
    version: /^redis_version:(\S+)/m.exec(server)?.[1] ?? 'unknown',
    usage: own ? () => readRedisUsage(client) : undefined,
    /** SCAN + DEL every key under `prefix` (never FLUSH: the Redis may be shared). Returns how many. */
    async deleteKeys(prefix) {
      let cursor = '0'
      let deleted = 0
      do {
        const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
        cursor = next
        if (keys.length) deleted += await client.del(...keys)
      } while (cursor !== '0')
      return deleted
    },
    async close() {
      client.disconnect()
      await own?.stop()
    },
  }
}

/** What the results say about the Redis used (stored as `meta.redisServer`). */
export function describeRedis(target) {
  return target
    ? { host: target.host, port: target.port, version: target.version, own: target.own }
    : { unreachable: true }
}

import type { ScriptClient } from './script-client.js'

/** The options of node-redis's `sendCommand` the store passes: a type mapping, and no command timeout. */
interface CommandOptions {
  typeMapping?: Record<number, unknown>
  timeout?: number
}

/**
 * A node-redis client, from `createClient()` (`redis` 5 or 6, `@redis/client`), as the few things the store
 * uses: `sendCommand` and the `isReady`/`isOpen` connection state. Connect it yourself (`await
 * client.connect()`); the store never closes it.
 */
export interface NodeRedisClient {
  sendCommand(args: string[], options?: CommandOptions): Promise<unknown>
  readonly isReady: boolean
  readonly isOpen: boolean
}

/**
 * A node-redis Cluster client, from `createCluster()`: `sendCommand(firstKey, isReadonly, args)` routes by the
 * first key; `nodeClient` is what tells it from a single client.
 */
export interface NodeRedisCluster {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
    options?: CommandOptions,
  ): Promise<unknown>
  nodeClient(node: never): unknown
  readonly isReady: boolean
  readonly isOpen: boolean
}

const has = (value: object, name: string, type: string) =>
  typeof (value as Record<string, unknown>)[name] === type

/**
 * Which node-redis client `value` is, by what it offers: `sendCommand` and boolean `isReady`/`isOpen`; a
 * Cluster also has `nodeClient`. A Sentinel client (`getMasterNode`, a `sendCommand(isReadonly, args)` of
 * its own) and a client pool (no `isReady`) are not taken.
 */
export function nodeRedisKind(value: object): 'node-redis' | 'node-redis-cluster' | undefined {
  if (
    !has(value, 'sendCommand', 'function') ||
    !has(value, 'isReady', 'boolean') ||
    !has(value, 'isOpen', 'boolean')
  ) {
    return undefined
  }
  if (has(value, 'nodeClient', 'function')) return 'node-redis-cluster'
  if (has(value, 'getMasterNode', 'function')) return undefined
  return 'node-redis'
}

/**
 * Whether `error` is a node-redis error reply (`ErrorReply`, or its `SimpleError` and `BlobError`), as opposed
 * to a connection error (`ClientOfflineError`, `SocketClosedUnexpectedlyError`, ...). node-redis gives its
 * errors neither a name nor a code, so the class, up the prototype chain, is what tells them apart.
 */
export function isNodeRedisErrorReply(error: Error): boolean {
  for (
    let p = Object.getPrototypeOf(error);
    p !== null && p !== Error.prototype;
    p = Object.getPrototypeOf(p)
  ) {
    if ((p as { constructor?: { name?: string } }).constructor?.name === 'ErrorReply') return true
  }
  return false
}

/**
 * The store bounds every call itself (the limiter's `storeTimeout`, one timer for all calls in flight), so its commands go
 * without node-redis's own per-command timeout (5 s by default), which costs an `AbortSignal.timeout` and
 * its listeners per command: about half of node-redis's CPU time per decision in the bench.
 */
const UNTIMED: CommandOptions = { timeout: undefined }

/**
 * RESP's bulk-string type (`$`, node-redis's `RESP_TYPES.BLOB_STRING`), mapped to Buffer: the scripts' replies
 * come back as their 40 bytes, on RESP2 and RESP3 alike.
 */
const BINARY: CommandOptions = { ...UNTIMED, typeMapping: { 36: Buffer } }

/** The command `name head numKeys ...args` (keys first in `args`), as node-redis's `sendCommand` takes it. */
const command = (name: string, head: string, numKeys: number, args: readonly string[]): string[] => [
  name,
  head,
  numKeys === 1 ? '1' : String(numKeys),
  ...args,
]

/** The key a Cluster routes the call by: the first, when there are keys. */
const firstKey = (numKeys: number, args: readonly string[]): string | undefined =>
  numKeys > 0 ? args[0] : undefined

const statusOf = (client: { readonly isReady: boolean; readonly isOpen: boolean }): string =>
  client.isReady ? 'ready' : client.isOpen ? 'connecting' : 'closed'

/** The store's view of a node-redis client: raw `sendCommand` (no per-command transform), binary replies. */
export function adaptNodeRedis(client: NodeRedisClient): ScriptClient {
  return {
    evalsha: (sha, numKeys, args) => client.sendCommand(command('EVALSHA', sha, numKeys, args), BINARY),
    eval: (source, numKeys, args) => client.sendCommand(command('EVAL', source, numKeys, args), BINARY),
    del: (key) => client.sendCommand(['DEL', key], UNTIMED),
    get status() {
      return statusOf(client)
    },
    isCluster: false,
    binary: true,
  }
}

/** The store's view of a node-redis Cluster: every call routed by its first key, binary replies. */
export function adaptNodeRedisCluster(cluster: NodeRedisCluster): ScriptClient {
  return {
    evalsha: (sha, numKeys, args) =>
      cluster.sendCommand(firstKey(numKeys, args), false, command('EVALSHA', sha, numKeys, args), BINARY),
    eval: (source, numKeys, args) =>
      cluster.sendCommand(firstKey(numKeys, args), false, command('EVAL', source, numKeys, args), BINARY),
    del: (key) => cluster.sendCommand(key, false, ['DEL', key], UNTIMED),
    get status() {
      return statusOf(cluster)
    },
    isCluster: true,
    binary: true,
  }
}

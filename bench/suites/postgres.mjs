// @bench-title PostgreSQL stores
// @bench-flags
//
// Floodgate's PostgresStore against rate-limiter-flexible's RateLimiterPostgres, against the same local
// PostgreSQL (127.0.0.1:5432, database test), in one run:
//   - decisions per second with 1 and with 256 requests in flight, on 10,000 keys round robin, with a quota
//     nobody reaches (every call admitted, so every store does the same work), each contender on a pg Pool of
//     the same size, in a schema of its own, in a fresh child process; rounds interleave the contenders;
//     Floodgate with its same-tick batching (`batch`, on by default: the decisions of one tick as one
//     statement of up to 128) and with `batch: false` (one statement per decision), and how many decisions
//     each of its statements carried;
//   - what one decision costs inside PostgreSQL, from EXPLAIN (ANALYZE, BUFFERS, WAL) of the statement each
//     store sends (for a batched store, one statement of 128 decisions on 128 keys, divided by 128):
//     execution time, buffers touched, WAL records and bytes; and how many of each table's
//     updates were HOT (no index touched), from pg_stat_user_tables.
// Floodgate commits without waiting for the WAL flush by default (synchronousCommit: false);
// RateLimiterPostgres uses the server's setting. Both are also measured the other way, so each pair of rows
// compares like with like. Writes bench/results/postgres.md and bench/results/postgres.json. Imports the
// built packages: build first (`npx turbo run build`, or `cd packages/postgres && npx tsup`).
//
//   node bench/suites/postgres.mjs            the full suite (about 3 minutes)
//   node bench/suites/postgres.mjs --quick    a smoke run with tiny durations (numbers not representative)

import { parseArgs, runNode, sendResult } from '../lib/child.mjs'
import { commandLine, machine } from '../lib/env.mjs'
import { fmtCount, fmtRatio, fmtSpread, mdTable } from '../lib/format.mjs'
import { writeResults } from '../lib/results.mjs'
import { median, summarize } from '../lib/stats.mjs'

const SELF = new URL(import.meta.url).pathname
const args = parseArgs()
const quick = Boolean(args.quick)

const DATABASE = { host: '127.0.0.1', port: 5432, user: 'postgres', database: 'test' }
// One schema prefix per run, handed to the children, so that the parent can drop everything the run made.
const PREFIX = args.prefix ?? `floodgate_bench_${process.pid}`
const CONFIG = {
  rounds: Number(args.rounds ?? (quick ? 1 : 3)),
  warmupMs: quick ? 100 : 300,
  measureMs: quick ? 200 : 1500,
  keys: 10_000,
  inFlight: [1, 256],
  /** The most decisions one batched statement carries (the store's default `batch`). */
  batchSize: 128,
  /** One pool size for every contender: pg's default. */
  poolMax: 10,
  /** EXPLAIN ANALYZE samples per contender for the server-side cost. */
  explainSamples: quick ? 20 : 200,
  limit: 1e9,
  windowMs: 3_600_000,
}

const ASYNC_COMMIT = '-c synchronous_commit=off'
const FLOODGATE = {
  'floodgate-swc': {
    label: 'Floodgate sliding window counter (default)',
    make: (c) => c.slidingWindowCounter({ limit: CONFIG.limit, window: CONFIG.windowMs }),
  },
  'floodgate-swc-unbatched': {
    label: 'Floodgate sliding window counter, `batch: false`',
    make: (c) => c.slidingWindowCounter({ limit: CONFIG.limit, window: CONFIG.windowMs }),
    store: { batch: false },
  },
  'floodgate-fw': {
    label: 'Floodgate fixed window',
    make: (c) => c.fixedWindow({ limit: CONFIG.limit, window: CONFIG.windowMs }),
  },
  'floodgate-fw-unbatched': {
    label: 'Floodgate fixed window, `batch: false`',
    make: (c) => c.fixedWindow({ limit: CONFIG.limit, window: CONFIG.windowMs }),
    store: { batch: false },
  },
  'floodgate-gcra': {
    label: 'Floodgate GCRA',
    make: (c) => c.gcra({ rate: 1e6, period: '1s', burst: CONFIG.limit }),
  },
  'floodgate-fw-durable': {
    label: 'Floodgate fixed window, `synchronousCommit: true`',
    make: (c) => c.fixedWindow({ limit: CONFIG.limit, window: CONFIG.windowMs }),
    store: { synchronousCommit: true },
  },
}
const PEERS = {
  rlf: { label: 'rate-limiter-flexible RateLimiterPostgres', pool: {} },
  'rlf-async': {
    label: 'rate-limiter-flexible RateLimiterPostgres, pool with `synchronous_commit=off`',
    pool: { options: ASYNC_COMMIT },
  },
}
const CONTENDERS = [...Object.keys(FLOODGATE), ...Object.keys(PEERS)]
const labelOf = (id) => (FLOODGATE[id] ?? PEERS[id]).label
const schemaOf = (id) => `${PREFIX}_${id.replaceAll('-', '_')}`
/** The rows compared with each other: like with like on commit durability. */
const PAIRS = [
  ['floodgate-fw', 'rlf-async', 'asynchronous commit'],
  ['floodgate-swc', 'rlf-async', 'asynchronous commit'],
  ['floodgate-fw-durable', 'rlf', 'synchronous commit'],
  ['floodgate-fw-unbatched', 'rlf-async', 'asynchronous commit'],
  ['floodgate-swc-unbatched', 'rlf-async', 'asynchronous commit'],
]
/** Batched over `batch: false`: the same store and algorithm. */
const BATCH_PAIRS = [
  ['floodgate-swc', 'floodgate-swc-unbatched'],
  ['floodgate-fw', 'floodgate-fw-unbatched'],
]
const batched = (id) => Boolean(FLOODGATE[id]) && FLOODGATE[id].store?.batch !== false

// ---------------------------------------------------------------------------------------------------------
// Child side: one contender, one pool.

async function pool(extra = {}) {
  const { default: pg } = await import('pg')
  const p = new pg.Pool({ ...DATABASE, max: CONFIG.poolMax, ...extra })
  p.on('error', () => {})
  await p.query('SELECT 1')
  return p
}

/** `p`, counting the statements its clients send (`counter.statements`). */
function counting(p, counter) {
  return {
    connect(callback) {
      p.connect((error, client, release) => {
        if (!client) return callback(error, client, release)
        callback(
          error,
          {
            query(query, done) {
              counter.statements++
              return client.query(query, done)
            },
          },
          release,
        )
      })
    },
    on: (event, listener) => p.on(event, listener),
    removeListener: (event, listener) => p.removeListener(event, listener),
  }
}

/** `decide(key)` for a contender: resolves true when admitted (and counts Floodgate's statements). */
async function contender(id, p, counter) {
  if (FLOODGATE[id]) {
    const core = await import('@floodgate/core')
    const { PostgresStore } = await import('@floodgate/postgres')
    const algorithm = FLOODGATE[id].make(core)
    const store = new PostgresStore({
      pool: counting(p, counter),
      schema: schemaOf(id),
      ...FLOODGATE[id].store,
    })
    store.answerWithin(5000) // the limiter's storeTimeout, as a limiter would give it
    return async (key) => {
      const d = await store.consume(algorithm, key, 1)
      if (d.source !== 'postgres') throw new Error(`a decision from ${d.source}`)
      return d.allowed
    }
  }
  const { RateLimiterPostgres } = await import('rate-limiter-flexible')
  const limiter = await new Promise((resolve, reject) => {
    const l = new RateLimiterPostgres(
      {
        storeClient: p,
        storeType: 'pool',
        schemaName: schemaOf(id),
        tableName: 'rlf',
        points: CONFIG.limit,
        duration: CONFIG.windowMs / 1000,
        clearExpiredByTimeout: false,
      },
      (error) => (error ? reject(error) : resolve(l)),
    )
  })
  return async (key) => {
    try {
      await limiter.consume(key)
      return true
    } catch (result) {
      if (result instanceof Error) throw result
      return false
    }
  }
}

/**
 * Keep `inFlight` calls going over `keys` for about `ms`; decisions per second. The deadline is checked by
 * the callers themselves, every call (a round trip costs far more than reading the clock).
 */
async function throughput(decide, keys, inFlight, ms, counter) {
  const statementsBefore = counter.statements
  let i = 0
  let calls = 0
  let admitted = 0
  let running = true
  const start = process.hrtime.bigint()
  const cpu = process.cpuUsage()
  const deadline = start + BigInt(Math.round(ms * 1e6))
  const worker = async () => {
    while (running) {
      if (await decide(keys[i++ % keys.length])) admitted++
      calls++
      if (process.hrtime.bigint() >= deadline) running = false
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker))
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  const used = process.cpuUsage(cpu)
  const statements = counter.statements - statementsBefore
  return {
    perSecond: calls / seconds,
    calls,
    admitted,
    nodeUs: (used.user + used.system) / calls,
    perStatement: statements > 0 ? calls / statements : Number.NaN,
  }
}

const keyList = () => Array.from({ length: CONFIG.keys }, (_, i) => `198.51.${(i >> 8) & 255}.${i & 255}`)

async function child() {
  const id = args.child
  const p = await pool(PEERS[id]?.pool)
  const counter = { statements: 0 }
  const decide = await contender(id, p, counter)
  const keys = keyList()
  const result = {}
  for (const inFlight of CONFIG.inFlight) {
    await throughput(decide, keys, inFlight, CONFIG.warmupMs, counter)
    result[inFlight] = await throughput(decide, keys, inFlight, CONFIG.measureMs, counter)
    if (result[inFlight].admitted !== result[inFlight].calls) throw new Error('a call was refused')
  }
  await p.end()
  return sendResult(result)
}

// ---------------------------------------------------------------------------------------------------------
// Parent side.

/** rate-limiter-flexible's upsert for one consume, as RateLimiterPostgres sends it, with its values inlined. */
function rlfStatement(id, key) {
  const table = `"${schemaOf(id)}"."rlf"`
  const now = Date.now()
  return `INSERT INTO ${table} VALUES ('${key}', 1, ${now + CONFIG.windowMs})
    ON CONFLICT(key) DO UPDATE SET
      points = CASE WHEN (${table}.expire <= ${now} OR 1=0) THEN 1 ELSE ${table}.points + (1) END,
      expire = CASE WHEN ${table}.expire <= ${now} THEN ${now + CONFIG.windowMs} ELSE ${table}.expire END
    RETURNING points, expire`
}

/** Floodgate's call for one consume, as the store sends it (a bound of 5000 ms: lock_timeout 1250), inlined. */
function floodgateStatement(id, key, core) {
  const { algorithm, params, durable } = floodgateCall(id, core)
  return (
    `SELECT allowed, remaining, reset_ms, retry_after_ms, delay_ms FROM "${schemaOf(id)}".floodgate_decide(` +
    `'${key}', '${algorithm.id}', '${algorithm.kind}', 'c', NULL, 1, 2000, '1250', ${durable}, ` +
    `${params.map((v) => (v === null ? 'NULL' : v)).join(', ')})`
  )
}

/** A batched store's call for `keys.length` consumes of one tick, one a key, as the store sends it, inlined. */
function floodgateBatchStatement(id, keys, core) {
  const { algorithm, params, durable } = floodgateCall(id, core)
  const n = keys.length
  const array = (values, type) => `ARRAY[${values.join(', ')}]::${type}[]`
  const repeat = (value) => Array(n).fill(value)
  return (
    `SELECT allowed, remaining, reset_ms, retry_after_ms, delay_ms FROM "${schemaOf(id)}".floodgate_consume_batch(` +
    [
      array(repeat(1), 'integer'),
      array(repeat('NULL'), 'float8'),
      array(
        keys.map((k) => `'${k}'`),
        'text',
      ),
      array(repeat(`'${algorithm.id}'`), 'text'),
      array(repeat(`'${algorithm.kind}'`), 'text'),
      array(repeat(1), 'float8'),
      array(
        keys.flatMap(() => params.map((v) => (v === null ? 'NULL' : v))),
        'float8',
      ),
      '2000',
      "'1250'",
      String(durable),
    ].join(', ') +
    ') WITH ORDINALITY ORDER BY ordinality'
  )
}

/** The algorithm, its step parameters as the store sends them, and the commit setting of a Floodgate contender. */
function floodgateCall(id, core) {
  const algorithm = FLOODGATE[id].make(core)
  const params = {
    'fixed-window': [algorithm.params.limit, algorithm.params.windowMs, null, null],
    'sliding-window-counter': [algorithm.params.limit, algorithm.params.windowMs, null, null],
    gcra: [algorithm.params.emissionMs, algorithm.params.toleranceMs, algorithm.params.burst, null],
  }[algorithm.kind]
  return { algorithm, params, durable: Boolean(FLOODGATE[id].store?.synchronousCommit) }
}

/**
 * What one decision costs inside PostgreSQL: EXPLAIN (ANALYZE, BUFFERS, WAL) of the contender's statement on
 * keys it already holds (the steady state), medians over the samples. Runs in a transaction that is rolled
 * back, so it changes nothing.
 */
async function costOf(id, p, core) {
  const keys = keyList()
  // A batched store's statement decides `batchSize` keys: its cost is divided among them.
  const per = batched(id) ? CONFIG.batchSize : 1
  const statement = (i) => {
    if (!FLOODGATE[id]) return rlfStatement(id, keys[i % keys.length])
    if (per === 1) return floodgateStatement(id, keys[i % keys.length], core)
    const start = (i * per) % (keys.length - per + 1)
    return floodgateBatchStatement(id, keys.slice(start, start + per), core)
  }
  const client = await p.connect()
  const samples = { ms: [], buffers: [], walRecords: [], walBytes: [] }
  try {
    for (let i = 0; i < CONFIG.explainSamples; i++) {
      await client.query('BEGIN')
      const { rows } = await client.query(`EXPLAIN (ANALYZE, BUFFERS, WAL, FORMAT JSON) ${statement(i)}`)
      await client.query('ROLLBACK')
      const [{ Plan: plan, 'Execution Time': ms, Planning: planning }] = rows[0]['QUERY PLAN']
      samples.ms.push(ms)
      samples.buffers.push(
        (plan['Shared Hit Blocks'] ?? 0) +
          (plan['Shared Read Blocks'] ?? 0) +
          (planning?.['Shared Hit Blocks'] ?? 0),
      )
      samples.walRecords.push(plan['WAL Records'] ?? 0)
      samples.walBytes.push(plan['WAL Bytes'] ?? 0)
    }
  } finally {
    client.release()
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, median(v) / per]))
}

async function hotShare(p, id) {
  const table = FLOODGATE[id] ? 'floodgate' : 'rlf'
  const { rows } = await p.query(
    'SELECT n_tup_upd::float8 AS upd, n_tup_hot_upd::float8 AS hot FROM pg_stat_user_tables WHERE schemaname = $1 AND relname = $2',
    [schemaOf(id), table],
  )
  const row = rows[0]
  return row && row.upd > 0 ? row.hot / row.upd : Number.NaN
}

async function setUp() {
  let p
  try {
    p = await pool({ max: 1 })
  } catch (error) {
    throw new Error(
      `The PostgreSQL bench needs PostgreSQL at ${DATABASE.host}:${DATABASE.port} (user ${DATABASE.user}, database ${DATABASE.database}): ${error.message}`,
    )
  }
  let postgres
  try {
    postgres = await import('@floodgate/postgres')
  } catch (error) {
    throw new Error(`@floodgate/postgres is not built (cd packages/postgres && npx tsup): ${error.message}`)
  }
  for (const id of CONTENDERS) {
    await p.query(`DROP SCHEMA IF EXISTS "${schemaOf(id)}" CASCADE`)
    if (FLOODGATE[id]) await postgres.migrate(p, { schema: schemaOf(id) })
    else await p.query(`CREATE SCHEMA "${schemaOf(id)}"`)
  }
  return p
}

async function cleanUp(p) {
  for (const id of CONTENDERS) await p.query(`DROP SCHEMA IF EXISTS "${schemaOf(id)}" CASCADE`)
  await p.end()
}

const run = (id) =>
  runNode(SELF, ['--child', id, '--prefix', PREFIX, ...(quick ? ['--quick'] : [])], { timeoutMs: 60_000 })

async function main() {
  const p = await setUp()
  const started = Date.now()
  const loadBefore = machine().loadavg
  const busy = CONFIG.inFlight.at(-1)
  const samples = Object.fromEntries(
    CONTENDERS.map((id) => [id, Object.fromEntries(CONFIG.inFlight.map((n) => [n, []]))]),
  )
  const nodeUs = Object.fromEntries(CONTENDERS.map((id) => [id, []]))
  const perStatement = Object.fromEntries(CONTENDERS.map((id) => [id, []]))
  let costs
  let hot
  try {
    for (let round = 0; round < CONFIG.rounds; round++) {
      const order = round % 2 === 0 ? CONTENDERS : [...CONTENDERS].reverse()
      for (const id of order) {
        const result = await run(id)
        for (const n of CONFIG.inFlight) samples[id][n].push(result[n].perSecond)
        nodeUs[id].push(result[busy].nodeUs)
        perStatement[id].push(result[busy].perStatement)
        process.stderr.write(
          `round ${round + 1} ${id.padEnd(22)} ${CONFIG.inFlight.map((n) => `${n}: ${fmtCount(result[n].perSecond)}/s`).join('  ')}\n`,
        )
      }
    }
    hot = Object.fromEntries(await Promise.all(CONTENDERS.map(async (id) => [id, await hotShare(p, id)])))
    const core = await import('@floodgate/core')
    costs = {}
    for (const id of CONTENDERS) costs[id] = await costOf(id, p, core)
  } finally {
    await cleanUp(p)
  }

  const stats = Object.fromEntries(
    CONTENDERS.map((id) => [
      id,
      Object.fromEntries(CONFIG.inFlight.map((n) => [n, summarize(samples[id][n])])),
    ]),
  )
  const rateOf = (id, n) => stats[id][n].median
  const pairRatio = (a, b, n) => rateOf(a, n) / rateOf(b, n)
  const perStatementOf = (id) => (FLOODGATE[id] ? median(perStatement[id]) : Number.NaN)
  const fmtCost = (v) => (Number.isInteger(v) ? String(v) : v.toFixed(2))
  const rows = CONTENDERS.map((id) => [
    labelOf(id),
    ...CONFIG.inFlight.map((n) => `${fmtCount(rateOf(id, n))}/s ${fmtSpread(stats[id][n].spread)}`),
    `${(1e6 / rateOf(id, 1)).toFixed(0)} µs`,
    median(nodeUs[id]).toFixed(0),
    Number.isFinite(perStatementOf(id)) ? perStatementOf(id).toFixed(1) : 'n/a',
    costs[id].ms.toFixed(3),
    fmtCost(costs[id].buffers),
    fmtCost(costs[id].walRecords),
    fmtCost(costs[id].walBytes),
    Number.isFinite(hot[id]) ? `${Math.round(hot[id] * 100)}%` : 'n/a',
  ])
  const batchRows = BATCH_PAIRS.map(([a, b]) => [
    `${labelOf(a)} / ${labelOf(b)}`,
    ...CONFIG.inFlight.map((n) => fmtRatio(pairRatio(a, b, n))),
  ])
  const pairRows = PAIRS.map(([a, b, what]) => [
    `${labelOf(a)} / ${labelOf(b)}`,
    what,
    ...CONFIG.inFlight.map((n) => fmtRatio(pairRatio(a, b, n))),
  ])
  const md = [
    '## PostgreSQL stores',
    '',
    `Decisions per second against one local PostgreSQL (${DATABASE.host}:${DATABASE.port}, database \`${DATABASE.database}\`), ` +
      `with 1 and with ${busy} requests in flight, ${CONFIG.keys.toLocaleString('en')} keys round robin, every call admitted; ` +
      `each cell is the median of ${CONFIG.rounds} interleaved rounds of ${CONFIG.measureMs} ms (± half the spread), each ` +
      `contender in its own process on its own \`pg\` Pool of ${CONFIG.poolMax} connections, in a schema of its own. ` +
      '*Latency* is the time per decision at 1 in flight; *Node µs* the CPU time the app process spends per decision ' +
      `(at ${busy} in flight: the driver, the pool and the store); *per statement* how many decisions each ` +
      `statement Floodgate sent carried, at ${busy} in flight (its \`batch\`, on by default, sends the decisions of ` +
      `one tick as one statement of up to ${CONFIG.batchSize}). The server-side columns come from ` +
      '`EXPLAIN (ANALYZE, BUFFERS, WAL)` of the statement each store sends for one consume on a key it holds ' +
      `(median of ${CONFIG.explainSamples}, rolled back): execution time, shared buffers touched, WAL records and ` +
      `bytes; for a batched store, of one \`floodgate_consume_batch\` of ${CONFIG.batchSize} consumes on ` +
      `${CONFIG.batchSize} keys, divided by ${CONFIG.batchSize}. *HOT* is the share of the table's updates during ` +
      'the run that touched no index (`pg_stat_user_tables`).',
    '',
    mdTable(
      [
        'store',
        ...CONFIG.inFlight.map((n) => ({ title: `${n} in flight`, align: 'right' })),
        { title: 'latency', align: 'right' },
        { title: 'Node µs', align: 'right' },
        { title: 'per statement', align: 'right' },
        { title: 'server ms', align: 'right' },
        { title: 'buffers', align: 'right' },
        { title: 'WAL records', align: 'right' },
        { title: 'WAL bytes', align: 'right' },
        { title: 'HOT', align: 'right' },
      ],
      rows,
    ),
    '',
    'Batched over `batch: false` (the same store and algorithm):',
    '',
    mdTable(
      ['Floodgate', ...CONFIG.inFlight.map((n) => ({ title: `${n} in flight`, align: 'right' }))],
      batchRows,
    ),
    '',
    'Ratios, like with like (1.0x = as fast as RateLimiterPostgres with the same commit durability):',
    '',
    mdTable(
      [
        'Floodgate / peer',
        'commits',
        ...CONFIG.inFlight.map((n) => ({ title: `${n} in flight`, align: 'right' })),
      ],
      pairRows,
    ),
    '',
    "What each store does per decision: Floodgate calls one PL/pgSQL function (`floodgate_decide`) that locks the key's " +
      "row, runs the algorithm's step on the database's clock and writes the new state (a fresh key: an insert), and " +
      'returns the whole decision (remaining, reset, retry-after, delay); batched, one call of ' +
      '`floodgate_consume_batch` does that for every decision of a tick (up to 128) in one statement, one ' +
      'transaction and one round trip on one pool connection; RateLimiterPostgres sends one `INSERT ... ON ' +
      "CONFLICT DO UPDATE` of a counter whose window starts at its first hit, on the app server's clock. " +
      "Floodgate's default commits without waiting for the WAL flush (`synchronous_commit = off` for its own " +
      'transactions: a database crash may lose the last fraction of a second of counts); the peer gets the same only ' +
      'when its pool sets it. On a shared 2-core machine these numbers move by tens of per cent from run to run: ' +
      'compare within a run, and mind the spread.',
    '',
    `Load average ${loadBefore.join(' / ')} at the start, ${machine().loadavg.join(' / ')} at the end. ` +
      `Measured with \`${commandLine()}\` in ${Math.round((Date.now() - started) / 1000)} s.${quick ? ' (--quick: numbers not representative.)' : ''}`,
  ].join('\n')
  const json = {
    meta: { ...machine(), loadavgAtStart: loadBefore, command: commandLine(), config: CONFIG, quick },
    throughput: Object.fromEntries(
      CONTENDERS.map((id) => [
        id,
        {
          label: labelOf(id),
          ...Object.fromEntries(
            CONFIG.inFlight.map((n) => [n, { ...stats[id][n], samples: samples[id][n] }]),
          ),
        },
      ]),
    ),
    ratios: PAIRS.map(([a, b, what]) => ({
      floodgate: a,
      peer: b,
      commits: what,
      ...Object.fromEntries(CONFIG.inFlight.map((n) => [n, pairRatio(a, b, n)])),
    })),
    serverCost: costs,
    nodeCpuUsPerDecision: Object.fromEntries(CONTENDERS.map((id) => [id, median(nodeUs[id])])),
    decisionsPerStatement: Object.fromEntries(
      CONTENDERS.filter((id) => FLOODGATE[id]).map((id) => [id, perStatementOf(id)]),
    ),
    batchRatios: BATCH_PAIRS.map(([a, b]) => ({
      batched: a,
      unbatched: b,
      ...Object.fromEntries(CONFIG.inFlight.map((n) => [n, pairRatio(a, b, n)])),
    })),
    hotUpdateShare: hot,
  }
  const files = writeResults('postgres', md, json)
  console.log(md)
  console.log(`\nwrote ${files.md} and ${files.json}`)
}

if (args.child) await child()
else await main()

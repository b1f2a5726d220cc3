/**
 * The hello-world apps of the http suite: one per framework, bare or behind a rate limiter, each limiter
 * configured the way its own docs show it, with only the quota (and, for Redis, the client and a key
 * prefix) set. Every module is imported lazily, so a server process loads one framework and one limiter.
 */

import { metricsSink } from '../../lib/metrics-sink.mjs'

export const HELLO = 'Hello, world!'

export const FRAMEWORKS = {
  express: {
    label: 'Express 5',
    peer: 'express-rate-limit',
    peerMemory: 'express-rate-limit, memory',
    peerRedis: 'express-rate-limit + rate-limit-redis',
  },
  fastify: {
    label: 'Fastify 5',
    peer: '@fastify/rate-limit',
    peerMemory: '@fastify/rate-limit, memory',
    peerRedis: '@fastify/rate-limit, `redis` option',
  },
  koa: {
    label: 'Koa 3',
    peer: 'koa-ratelimit',
    peerMemory: 'koa-ratelimit, memory driver',
    peerRedis: 'koa-ratelimit, redis driver',
  },
}

/**
 * Limiters: `floodgate` or `peer`; `store`: `memory` or `redis`. The instruction counts also take
 * `passthrough`: a middleware (a Fastify `onRequest` hook) that only goes on, what the framework charges for
 * any middleware; `passthrough-ip`, which also reads the client address the way the limiters do; and (on
 * Express) `passthrough-later`, which also goes on in a microtask, as Floodgate's adapter does.
 */
export const LIMITERS = ['none', 'floodgate', 'peer']

/** How each configuration is written, for the results. */
export function howOf(framework, limiter, store, metrics) {
  if (limiter === 'none') return 'no limiter'
  if (limiter === 'floodgate') {
    const m = metrics ? ', metrics' : ''
    const s = store === 'redis' ? `, store: new RedisStore({ client: redis, prefix${m} })` : ''
    const sink =
      metrics === 'prometheus'
        ? ' with metrics = prometheus({ register: new Registry() })'
        : metrics === 'opentelemetry'
          ? ' with metrics = openTelemetry({ meter }) (an SDK MeterProvider, in-memory exporter)'
          : ''
    const opts = `{ limit, window: '1m'${s}${m} }`
    return framework === 'fastify'
      ? `await app.register(rateLimit, ${opts}) (@floodgate/fastify)${sink}`
      : `app.use(rateLimit(${opts})) (@floodgate/${framework})${sink}`
  }
  if (framework === 'express') {
    return store === 'redis'
      ? 'app.use(rateLimit({ windowMs: 60_000, limit, store: new RedisStore({ sendCommand: (...a) => redis.call(...a), prefix }) }))'
      : 'app.use(rateLimit({ windowMs: 60_000, limit }))'
  }
  if (framework === 'fastify') {
    return store === 'redis'
      ? 'await app.register(fastifyRateLimit, { max: limit, timeWindow: 60_000, redis, nameSpace: prefix })'
      : 'await app.register(fastifyRateLimit, { max: limit, timeWindow: 60_000 })'
  }
  return store === 'redis'
    ? "app.use(ratelimit({ driver: 'redis', db: redis, duration: 60_000, max: limit, namespace: prefix }))"
    : "app.use(ratelimit({ driver: 'memory', db: new Map(), duration: 60_000, max: limit }))"
}

async function redisClient(options) {
  const { Redis } = await import('ioredis')
  const client = new Redis(options)
  await client.ping()
  return client
}

/**
 * Build and start one server on 127.0.0.1 (an ephemeral port). FLOODGATE_EXPRESS=<path to an index.js> serves
 * Express with another build of @floodgate/express (the before of a change, in the instruction counts). `limit` per 60 s per client address.
 * `floodgateOptions` is merged into Floodgate's options, for instruction counts that take one piece of its
 * work away (`{ "headers": false }`: no rate-limit headers); the timed suite never sets it.
 * Resolves with `{ port, close() }`.
 */
export async function startServer({
  framework,
  limiter,
  store,
  limit,
  prefix,
  redisOptions,
  metrics,
  floodgateOptions: extra,
}) {
  const windowMs = 60_000
  const clients = []
  const redis = async () => {
    const c = await redisClient(redisOptions)
    clients.push(c)
    return c
  }
  let port
  let closeServer

  if (framework === 'express') {
    const { default: express } = await import('express')
    const app = express()
    if (limiter === 'floodgate') {
      const { rateLimit } = await import(process.env.FLOODGATE_EXPRESS ?? '@floodgate/express')
      app.use(rateLimit(await floodgateOptions(store, limit, prefix, redis, metrics, extra)))
    } else if (limiter === 'peer') {
      const { rateLimit } = await import('express-rate-limit')
      const options = { windowMs, limit }
      if (store === 'redis') {
        const { RedisStore } = await import('rate-limit-redis')
        const c = await redis()
        options.store = new RedisStore({ sendCommand: (...command) => c.call(...command), prefix })
      }
      app.use(rateLimit(options))
    } else if (limiter === 'passthrough') {
      app.use((_req, _res, next) => next())
    } else if (limiter === 'passthrough-ip') {
      app.use((req, _res, next) => {
        if (req.ip === '') throw new Error('no address')
        next()
      })
    } else if (limiter === 'passthrough-later') {
      app.use((req, _res, next) => {
        if (req.ip === '') throw new Error('no address')
        queueMicrotask(() => next())
      })
    }
    app.get('/', (_req, res) => {
      res.send(HELLO)
    })
    const server = await new Promise((resolve, reject) => {
      const s = app.listen(0, '127.0.0.1', (error) => (error ? reject(error) : resolve(s)))
    })
    port = server.address().port
    closeServer = () => new Promise((resolve) => server.close(resolve))
  } else if (framework === 'fastify') {
    const { default: Fastify } = await import('fastify')
    const app = Fastify({ logger: false })
    if (limiter === 'floodgate') {
      const { rateLimit } = await import('@floodgate/fastify')
      await app.register(rateLimit, await floodgateOptions(store, limit, prefix, redis, metrics, extra))
    } else if (limiter === 'peer') {
      const { default: fastifyRateLimit } = await import('@fastify/rate-limit')
      const options = { max: limit, timeWindow: windowMs }
      if (store === 'redis') Object.assign(options, { redis: await redis(), nameSpace: prefix })
      await app.register(fastifyRateLimit, options)
    } else if (limiter === 'passthrough') {
      app.addHook('onRequest', (_request, _reply, done) => done())
    } else if (limiter === 'passthrough-ip') {
      app.addHook('onRequest', (request, _reply, done) => {
        if (request.ip === '') throw new Error('no address')
        done()
      })
    }
    app.get('/', async () => HELLO)
    await app.listen({ port: 0, host: '127.0.0.1' })
    port = app.server.address().port
    closeServer = () => app.close()
  } else if (framework === 'koa') {
    const { default: Koa } = await import('koa')
    const app = new Koa()
    if (limiter === 'floodgate') {
      const { rateLimit } = await import('@floodgate/koa')
      app.use(rateLimit(await floodgateOptions(store, limit, prefix, redis, metrics, extra)))
    } else if (limiter === 'peer') {
      const { default: ratelimit } = await import('koa-ratelimit')
      app.use(
        store === 'redis'
          ? ratelimit({
              driver: 'redis',
              db: await redis(),
              duration: windowMs,
              max: limit,
              namespace: prefix,
            })
          : ratelimit({ driver: 'memory', db: new Map(), duration: windowMs, max: limit }),
      )
    } else if (limiter === 'passthrough') {
      app.use((_ctx, next) => next())
    } else if (limiter === 'passthrough-ip') {
      app.use((ctx, next) => {
        if (ctx.ip === '') throw new Error('no address')
        return next()
      })
    }
    app.use((ctx) => {
      ctx.body = HELLO
    })
    const server = await new Promise((resolve, reject) => {
      const s = app.listen(0, '127.0.0.1')
      s.once('listening', () => resolve(s))
      s.once('error', reject)
    })
    port = server.address().port
    closeServer = () => new Promise((resolve) => server.close(resolve))
  } else {
    throw new Error(`unknown framework ${framework}`)
  }

  return {
    port,
    async close() {
      await Promise.race([closeServer(), new Promise((resolve) => setTimeout(resolve, 2000).unref())])
      for (const c of clients) c.disconnect()
    },
  }
}

async function floodgateOptions(store, limit, prefix, redis, metrics, extra) {
  const options = { limit, window: '1m' }
  const sink = metrics ? await metricsSink(metrics) : undefined
  if (sink) options.metrics = sink
  if (store === 'redis') {
    const { RedisStore } = await import('@floodgate/redis')
    options.store = new RedisStore({ client: await redis(), prefix, ...(sink ? { metrics: sink } : {}) })
  }
  return { ...options, ...extra }
}

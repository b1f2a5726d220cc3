import { MemoryStore, slidingWindowCounter } from '@floodgate/core'
import { rateLimit } from '@floodgate/fastify'
import { peekLimit, resetLimits, virtualClock } from '@floodgate/testing'
import Fastify from 'fastify'
import { afterAll, beforeEach, expect, it } from 'vitest'

// The app's limiter decides on a store and a clock its tests hold.
const store = new MemoryStore()
const clock = virtualClock(Date.UTC(2026, 0, 1, 12))
const app = Fastify()
await app.register(rateLimit, { store, clock: clock.now, limit: 5, window: '1m' })
app.get('/', async () => ({ ok: true }))
afterAll(() => app.close())

// Every test starts with every client's full quota.
beforeEach(() => resetLimits(store))

it('refuses the 6th request of a minute; a client that waits Retry-After gets through', async () => {
  for (let i = 0; i < 5; i++) expect((await app.inject({ url: '/' })).statusCode).toBe(200)
  const refused = await app.inject({ url: '/' })
  expect(refused.statusCode).toBe(429)
  clock.advance(Number(refused.headers['retry-after']) * 1000)
  expect((await app.inject({ url: '/' })).statusCode).toBe(200)
})

it('starts again with a full quota, and reads it by the key the middleware uses', async () => {
  expect((await app.inject({ url: '/' })).headers['ratelimit-remaining']).toBe('4')
  const limit = await peekLimit({
    store,
    algorithm: slidingWindowCounter({ limit: 5, window: '1m' }),
    client: { ip: '127.0.0.1' },
    now: clock.now(),
  })
  expect(limit.remaining).toBe(4)
})

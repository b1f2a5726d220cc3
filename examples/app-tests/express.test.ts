import { MemoryStore, slidingWindowCounter } from '@floodgate/core'
import { rateLimit } from '@floodgate/express'
import { peekLimit, resetLimits, virtualClock } from '@floodgate/testing'
import express from 'express'
import request from 'supertest'
import { beforeEach, expect, it } from 'vitest'

// The app's limiter decides on a store and a clock its tests hold.
const store = new MemoryStore()
const clock = virtualClock(Date.UTC(2026, 0, 1, 12))
const app = express()
app.use(rateLimit({ store, clock: clock.now, limit: 5, window: '1m' }))
app.get('/', (_req, res) => {
  res.json({ ok: true })
})

// Every test starts with every client's full quota.
beforeEach(() => resetLimits(store))

it('refuses the 6th request of a minute; a client that waits Retry-After gets through', async () => {
  for (let i = 0; i < 5; i++) await request(app).get('/').expect(200)
  const refused = await request(app).get('/').expect(429)
  clock.advance(Number(refused.headers['retry-after']) * 1000)
  await request(app).get('/').expect(200)
})

it('starts again with a full quota, and reads it by the key the middleware uses', async () => {
  await request(app).get('/').expect(200).expect('RateLimit-Remaining', '4')
  const limit = await peekLimit({
    store,
    algorithm: slidingWindowCounter({ limit: 5, window: '1m' }),
    client: { ip: '127.0.0.1' },
    now: clock.now(),
  })
  expect(limit.remaining).toBe(4)
})

import { type ConsumeItem, type Decision, RateLimitConfigError, type Store } from '@floodgate/core'
import { type BanRule, createRateLimitHandler } from '@floodgate/core/internal'
import { describe, expect, it } from 'vitest'
import { quotaAlgorithm } from '../algorithms.js'
import { type Suite, uniqueKey } from './suite.js'

/**
 * Bans (a store with `unban`): checked and counted in the same call as the decision, through consumeAll. A store
 * without `unban` cannot keep bans: each test checks instead that a limiter with a `ban` refuses it at creation.
 */
export function testBans(suite: Suite): void {
  const { kinds, time, at, nextDay } = suite
  describe('bans (a store with unban)', () => {
    const HOUR = 3_600_000
    /** The store's first kind with a quota of 2 that gives nothing back within a test. */
    const quota = () => quotaAlgorithm(kinds[0]!, 2)
    const banOf = (after: number, withinMs = HOUR, forMs = HOUR): BanRule => ({ after, withinMs, forMs })
    /** One unit of the quota at a key of its own (named after `name`), with `ban` when given. */
    const itemOf = (name: string, ban?: BanRule): ConsumeItem => ({
      algorithm: quota(),
      key: uniqueKey(name),
      cost: 1,
      ...(ban ? { ban } : {}),
    })
    const all = (items: ConsumeItem[], now: number | undefined) => suite.store.consumeAll!(items, now)
    const one = async (item: ConsumeItem, now: number | undefined) => (await all([item], now))[0]!
    /** A key whose quota is spent, at `now`. */
    const spent = async (item: ConsumeItem, now: number | undefined) => {
      for (let i = 0; i < item.algorithm.limit; i++)
        await suite.store.consume(item.algorithm, item.key, 1, now)
    }
    const banned = (d: Decision) => (d.bannedMs ?? 0) > 0

    it('the after-th refusal within `within` bans the key: a refusal with bannedMs, bannedNow on the first', async () => {
      const { store } = suite
      if (!store.unban) return refusesBan(store)
      expect(store.consumeAll, 'a store that keeps bans decides them in consumeAll').toBeTypeOf('function')
      const t = nextDay()
      const item = itemOf('ban', banOf(3, 10_000, 60_000))
      expect(await one(item, at(t))).toMatchObject({ allowed: true })
      expect(await one(item, at(t))).toMatchObject({ allowed: true })
      const first = await one(item, at(t + 1))
      expect(first.allowed).toBe(false)
      expect(banned(first)).toBe(false)
      expect(banned(await one(item, at(t + 2)))).toBe(false)
      const third = await one(item, at(t + 3))
      expect(banned(third)).toBe(true)
      expect(third.bannedNow).toBe(true)
      expect(third).toMatchObject({ allowed: false, remaining: 0, limit: item.algorithm.limit })
      if (time === 'given') {
        expect(third).toMatchObject({ bannedMs: 60_000, retryAfterMs: 60_000, resetMs: 60_000 })
        const later = await one(item, at(t + 1003))
        expect(later).toMatchObject({
          allowed: false,
          bannedMs: 59_000,
          retryAfterMs: 59_000,
          remaining: 0,
        })
        expect(later.bannedNow ?? false).toBe(false)
        // Over: refused by its quota alone, which counts again from one.
        const after = await one(item, at(t + 3 + 60_000))
        expect(after.allowed).toBe(false)
        expect(banned(after)).toBe(false)
      } else {
        const later = await one(item, undefined)
        expect(banned(later)).toBe(true)
        expect(later.bannedNow ?? false).toBe(false)
      }
    })

    if (time === 'given') {
      it('refusals further apart than `within` start the count again', async () => {
        const { store } = suite
        if (!store.unban) return refusesBan(store)
        const t = nextDay()
        const item = itemOf('ban-within', banOf(2, 1000, 5000))
        await spent(item, t)
        expect(banned(await one(item, t + 1))).toBe(false)
        expect(banned(await one(item, t + 1001))).toBe(false) // the window ran: this one is the first again
        const second = await one(item, t + 1500)
        expect(second).toMatchObject({ allowed: false, bannedMs: 5000, bannedNow: true })
        expect(await one(item, t + 6499)).toMatchObject({ bannedMs: 1 })
        expect(banned(await one(item, t + 6500))).toBe(false)
      })
    }

    it('a banned request consumes nothing and counts nothing; the other items are peeked', async () => {
      const { store } = suite
      if (!store.unban) return refusesBan(store)
      const t = nextDay()
      const a = itemOf('ban-a', banOf(1))
      const b = itemOf('ban-b')
      await spent(a, at(t))
      expect(banned(await one(a, at(t + 1)))).toBe(true)
      const both = await all([a, b], at(t + 2))
      expect(banned(both[0]!)).toBe(true)
      expect(both[0]!.bannedNow ?? false).toBe(false)
      expect(both[1]).toMatchObject({ allowed: true, remaining: b.algorithm.limit })
      expect(banned(both[1]!)).toBe(false)
      expect((await store.peek(b.algorithm, b.key, 1, at(t + 2))).remaining).toBe(b.algorithm.limit)
    })

    it('a refusal by another policy counts nothing toward an allowing item’s ban', async () => {
      const { store } = suite
      if (!store.unban) return refusesBan(store)
      const t = nextDay()
      const a = itemOf('ban-c', banOf(1))
      const b = itemOf('ban-d', banOf(1))
      await spent(b, at(t))
      const decided = await all([a, b], at(t + 1))
      expect(decided[0]).toMatchObject({ allowed: true })
      expect(banned(decided[0]!)).toBe(false)
      expect(decided[1]).toMatchObject({ allowed: false, bannedNow: true })
      expect(await one(a, at(t + 2))).toMatchObject({ allowed: true, remaining: a.algorithm.limit - 1 })
    })

    it('unban lifts the ban and forgets the refusals counted; reset leaves a ban', async () => {
      const { store } = suite
      if (!store.unban) return refusesBan(store)
      const t = nextDay()
      const item = itemOf('unban', banOf(2))
      await spent(item, at(t))
      await one(item, at(t + 1))
      expect(banned(await one(item, at(t + 2)))).toBe(true)
      await store.reset(item.algorithm, item.key)
      expect(banned(await one(item, at(t + 3)))).toBe(true)
      await store.unban(item.key)
      // The quota was reset and the banned request spent nothing: a full quota, then refusals from one again.
      expect(await one(item, at(t + 4))).toMatchObject({ allowed: true })
      expect(await one(item, at(t + 4))).toMatchObject({ allowed: true })
      const lifted = await one(item, at(t + 4))
      expect(lifted.allowed).toBe(false)
      expect(banned(lifted), 'the refusals before the ban are forgotten').toBe(false)
      expect(await one(item, at(t + 5))).toMatchObject({ bannedNow: true })
      await store.unban(uniqueKey('never-banned'))
    })

    it('same-tick refusals are counted exactly: of 6 concurrent refusals with after 3, one bans and two are banned', async () => {
      const { store } = suite
      if (!store.unban) return refusesBan(store)
      const t = nextDay()
      const item = itemOf('ban-tick', banOf(3))
      await spent(item, at(t))
      const decided = await Promise.all(Array.from({ length: 6 }, () => one(item, at(t + 1))))
      expect(decided.every((d) => !d.allowed)).toBe(true)
      expect(decided.filter((d) => d.bannedNow === true)).toHaveLength(1)
      expect(decided.filter(banned)).toHaveLength(4)
    })
  })
}

/** A store without `unban` cannot keep bans: a limiter with a `ban` refuses it when it is created. */
function refusesBan(store: Store): void {
  const create = () => createRateLimitHandler({ store, ban: { after: 3, within: '1m', for: '1h' } })
  expect(create).toThrow(RateLimitConfigError)
  expect(create).toThrow(/keeps bans/)
}

// Starts examples/bans/server.mjs as a child process and sends it real HTTP requests.
import { describe, expect, it } from 'vitest'
import { useExample } from '../../helpers/use-example.js'

describe('examples/bans', () => {
  const { get, post, statuses } = useExample('bans')

  it('3 logins a minute, then 429; the 3rd refusal bans the client: 403 with Retry-After; an admin lifts it', async () => {
    const responses = await statuses(7, () => post('/login'))
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 429, 429, 403, 403])
    const ban = responses[5]!
    expect(ban.headers.get('retry-after')).toBe('900')
    expect(ban.headers.get('cache-control')).toBe('no-store')
    expect(await ban.json()).toEqual({
      error: 'banned',
      message: 'Too many refused requests; banned for 900 seconds.',
      retryAfter: 900,
      policy: 'login',
    })
    expect(await (await get('/admin/banned')).json()).toEqual({ banned: ['127.0.0.1'] })
    expect((await post('/admin/unban?ip=127.0.0.1')).status).toBe(200)
    // Lifted; the minute's quota is still spent, so the client is refused (429) and counted from one again.
    expect((await post('/login')).status).toBe(429)
  })
})

// Starts examples/concurrency/server.mjs as a child process and sends it real HTTP requests: an export in
// flight holds the client's unit; a second is refused; the client leaving gives the unit back.
import { describe, expect, it, vi } from 'vitest'
import { useExample } from '../../helpers/use-example.js'

describe('examples/concurrency', () => {
  const app = useExample('concurrency')

  it('one export in flight per client: the second is refused until the first client leaves', async () => {
    const leaving = new AbortController()
    const first = await fetch(`${app.url}/export`, { signal: leaving.signal })
    expect(first.status).toBe(200)
    expect(first.headers.get('ratelimit-remaining')).toBe('0')
    const reader = first.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toContain(
      'exports you may still start now: 0',
    )

    const refused = await app.get('/export')
    expect(refused.status).toBe(429)
    expect(refused.headers.get('retry-after')).toBe('1')
    expect(await refused.json()).toMatchObject({ error: 'rate_limited', policy: 'exports' })

    leaving.abort() // the client leaves mid-export: its unit is given back when the server sees the close
    await reader.cancel().catch(() => {})
    const next = await vi.waitFor(
      async () => {
        const res = await app.get('/export')
        expect(res.status).toBe(200)
        return res
      },
      { timeout: 5000, interval: 50 },
    )
    await next.body?.cancel()
    expect((await app.get('/health')).status).toBe(200)
  })
})

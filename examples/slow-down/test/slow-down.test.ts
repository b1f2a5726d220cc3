// Starts examples/slow-down/server.mjs as a child process and sends it real HTTP requests: the delays it
// reports are checked, not timed (timing claims belong in bench/).
import { describe, expect, it } from 'vitest'
import { useExample } from '../../helpers/use-example.js'

describe.each([
  { major: 'Express 5', olderMajor: false },
  { major: 'Express 4', olderMajor: true },
])('examples/slow-down on $major', ({ olderMajor }) => {
  const { post, get, statuses } = useExample('slow-down', { olderMajor })

  it('the first 3 attempts go at once, each later one waits 100 ms more, up to 300 ms; the 9th is refused', async () => {
    const responses = await statuses(9, () => post('/login'))
    expect(responses.map((r) => r.status)).toEqual([...Array(8).fill(401), 429])
    expect(responses.map((r) => r.headers.get('floodgate-delay'))).toEqual([
      null,
      null,
      null,
      '100',
      '200',
      '300',
      '300',
      '300',
      '300', // slowed, then refused by the limit behind the slow-down
    ])
    const bodies = await Promise.all(responses.slice(0, 8).map((r) => r.json()))
    expect(bodies[0]).toEqual({ error: 'wrong_password', attempt: 1, delayed: 0 })
    expect(bodies[4]).toEqual({ error: 'wrong_password', attempt: 5, delayed: 200 })
    // The limit behind it speaks in its own headers; the slow-down sends none of those.
    expect(responses[0]!.headers.get('ratelimit-policy')).toBe('8;w=900')
    const refused = responses[8]!
    expect((await refused.json()).policy).toBe('login')
  })

  it('/health is not slowed down', async () => {
    const res = await get('/health')
    expect(res.status).toBe(200)
    expect(res.headers.get('floodgate-delay')).toBeNull()
  })
})

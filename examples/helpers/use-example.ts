// The client side the basic examples' tests share: start the example once for the file, then send real
// requests to it, with an optional `x-user` header (the examples' fake authentication).
import { afterAll, beforeAll, expect } from 'vitest'
import { type ExampleStart, type RunningExample, startExample } from './start-example.js'

export interface ExampleClient {
  /** The running example's address (`http://127.0.0.1:<port>`), once it has started. */
  readonly url: string
  get(path: string, user?: string): Promise<Response>
  post(path: string, user?: string): Promise<Response>
  /** Send `n` requests one after another; their responses in order. */
  statuses(n: number, send: () => Promise<Response>): Promise<Response[]>
}

/** Start `examples/<example>` before the tests of the file (or describe block) and stop it after them. */
export function useExample(example: string, start: ExampleStart = {}): ExampleClient {
  let app: RunningExample | undefined
  beforeAll(async () => {
    app = await startExample(example, start)
  })
  afterAll(async () => {
    // On an older major, the example must have run on it: older-majors.mjs tells each swap on stderr.
    if (start.olderMajor && app)
      expect(app.output()).toMatch(/older major: (express is express4|koa is koa2)/)
    await app?.stop()
  })
  const send = (method: string, path: string, user?: string) =>
    fetch(`${app!.url}${path}`, { method, headers: user ? { 'x-user': user } : {} })
  return {
    get url() {
      if (!app) throw new Error(`examples/${example} is started in beforeAll: use its url inside a test`)
      return app.url
    },
    get: (path, user) => send('GET', path, user),
    post: (path, user) => send('POST', path, user),
    async statuses(n, request) {
      const responses: Response[] = []
      for (let i = 0; i < n; i++) responses.push(await request())
      return responses
    },
  }
}

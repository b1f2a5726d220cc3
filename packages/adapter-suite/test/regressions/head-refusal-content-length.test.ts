// Regression: Express sent no Content-Length on a 429 to HEAD (the GET 429 had it; Fastify and Koa sent
// it), so Node's keep-alive clients dropped the connection after every refused HEAD: 3 HEADs and a GET used
// 2 connections instead of 1. Every adapter now sends it, and one connection serves them all.
import { Agent, request as httpRequest } from 'node:http'
import { MemoryStore } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { drivers, openApps } from '../../src/index.js'

function send(agent: Agent, url: string, method: string) {
  return new Promise<{ status: number; length: string | undefined; socket: unknown }>((resolve, reject) => {
    const req = httpRequest(url, { method, agent }, (res) => {
      res.resume()
      res.on('end', () =>
        resolve({ status: res.statusCode!, length: res.headers['content-length'], socket: req.socket }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

describe.each(drivers)('$name', (driver) => {
  const open = openApps()

  it('a refused HEAD has Content-Length, and the connection is kept', async () => {
    const a = open(await driver.createApp({ options: { limit: 1, window: '1m', store: new MemoryStore() } }))
    const url = await a.listen()
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    try {
      const responses = []
      for (const method of ['GET', 'HEAD', 'HEAD', 'HEAD', 'GET'])
        responses.push(await send(agent, url, method))
      expect(responses.map((r) => r.status)).toEqual([200, 429, 429, 429, 429])
      for (const r of responses.slice(1)) expect(Number(r.length)).toBeGreaterThan(0)
      expect(new Set(responses.map((r) => r.socket)).size).toBe(1)
    } finally {
      agent.destroy()
    }
  })
})

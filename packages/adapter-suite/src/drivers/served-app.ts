import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Overrides, Unban, UsageReport } from '@floodgate/core'
import request from 'supertest'
import type { AdapterApp, AppGates } from '../types.js'

/** A test app over a Node HTTP server bound to 127.0.0.1: requests go through real HTTP (supertest). */
export function servedApp(
  server: Server,
  gates: AppGates,
  usage: UsageReport | undefined,
  unban?: Unban,
  overrides?: Overrides,
): AdapterApp {
  return {
    async request({ method = 'GET', path, headers = {} }) {
      const res = await request(server)[method.toLowerCase() as 'get'](path).set(headers)
      return { status: res.status, headers: res.headers as Record<string, string>, body: res.body }
    },
    listen: async () => {
      if (!server.listening) await new Promise((resolve) => server.once('listening', resolve))
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    gates,
    usage,
    unban,
    overrides,
  }
}

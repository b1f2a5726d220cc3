import { createConnection } from 'node:net'

/** Where the shared Redis is expected, as the CI script starts it. */
export const SHARED_REDIS = { host: '127.0.0.1', port: 6379 } as const

export const HOW_TO_GET_REDIS =
  'Install it (`apt-get install redis-server`, or `brew install redis`) and start it ' +
  '(`redis-server --daemonize yes --save "" --appendonly no`).'

/** One RESP command over a fresh connection; resolves with the raw reply text. */
function command(port: number, host: string, args: string[], timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host })
    let reply = ''
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`no reply from ${host}:${port} within ${timeoutMs} ms`))
    }, timeoutMs)
    socket.setEncoding('utf8')
    socket.on('connect', () => {
      socket.write(`*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`)
    })
    socket.on('data', (chunk) => {
      reply += chunk
      if (reply.endsWith('\r\n')) {
        clearTimeout(timer)
        socket.end()
        resolve(reply)
      }
    })
    socket.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
  })
}

/** Whether a Redis answers PING at `host:port`. */
export async function pingRedis(port: number, host = '127.0.0.1'): Promise<boolean> {
  try {
    return (await command(port, host, ['PING'])).startsWith('+PONG')
  } catch {
    return false
  }
}

/**
 * Check that the shared Redis (127.0.0.1:6379) is up, or throw an error that says how to get one. Tests
 * that need it call this in `beforeAll`: they fail, never skip silently.
 */
export async function requireSharedRedis(): Promise<{ host: string; port: number; url: string }> {
  const { host, port } = SHARED_REDIS
  if (!(await pingRedis(port, host))) {
    throw new Error(
      `These tests need a Redis at ${host}:${port}, and none answered PING. ${HOW_TO_GET_REDIS}`,
    )
  }
  return { host, port, url: `redis://${host}:${port}` }
}

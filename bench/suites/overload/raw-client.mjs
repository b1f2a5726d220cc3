// A cheap HTTP/1.1 client for open-loop load: raw keep-alive sockets on node:net, one request at a time
// each, a new socket when none is free. It parses only what it needs (the status line, Content-Length), so
// the load generator is not what saturates first.
import net from 'node:net'

const HEAD_END = Buffer.from('\r\n\r\n')

/** A pool of connections to 127.0.0.1:`port`; `get(headers, timeoutMs)` resolves with the status (0: gave up). */
export function rawPool(port) {
  const idle = []
  const all = new Set()

  function connect() {
    const socket = net.connect({ host: '127.0.0.1', port })
    socket.setNoDelay(true)
    socket.on('error', () => socket.destroy())
    socket.on('close', () => {
      all.delete(socket)
      const at = idle.indexOf(socket)
      if (at >= 0) idle.splice(at, 1)
      socket.current?.(0)
    })
    all.add(socket)
    return socket
  }

  function get(headerLines, timeoutMs) {
    const socket = idle.pop() ?? connect()
    return new Promise((resolve) => {
      let buffer = Buffer.alloc(0)
      let status = 0
      let bodyLeft = -1
      const timer = setTimeout(() => socket.destroy(), timeoutMs)
      const finish = (code) => {
        clearTimeout(timer)
        socket.off('data', onData)
        socket.current = undefined
        resolve(code)
      }
      const onData = (chunk) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
        if (bodyLeft < 0) {
          const end = buffer.indexOf(HEAD_END)
          if (end < 0) return
          const head = buffer.subarray(0, end).toString('latin1')
          status = Number(head.slice(9, 12))
          const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
          bodyLeft = length ? Number(length[1]) : 0
          buffer = buffer.subarray(end + 4)
        }
        if (buffer.length >= bodyLeft) {
          finish(status)
          idle.push(socket)
        }
      }
      socket.current = finish
      socket.on('data', onData)
      socket.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n${headerLines}\r\n`)
    })
  }

  return {
    get,
    close() {
      for (const socket of all) socket.destroy()
    },
  }
}

// Express with a ban on the login route: 3 attempts a minute per client address; a client refused 3 times
// within 10 minutes is banned for 15 minutes (403 { "error": "banned" } with Retry-After), whatever its quota
// says. An admin route lifts a ban early (here open to anyone on the loopback; guard yours).
//
//   PORT=3000 node server.mjs
//   for i in 1 2 3 4 5 6 7; do curl -s -o /dev/null -w '%{http_code}\n' -X POST http://127.0.0.1:3000/login; done
//   # 200 200 200 429 429 403 403
//   curl -X POST 'http://127.0.0.1:3000/admin/unban?ip=127.0.0.1'
import { fixedWindow } from '@floodgate/core'
import { rateLimit } from '@floodgate/express'
import express from 'express'

const banned = []
const loginLimit = rateLimit({
  limits: [
    {
      name: 'login',
      key: 'ip',
      algorithm: fixedWindow({ limit: 3, window: '1m' }),
      ban: { after: 3, within: '10m', for: '15m' },
    },
  ],
  onBanned: (req, ban) => {
    banned.push(req.ip)
    console.log(`banned ${req.ip} for ${ban.forMs / 60_000} minutes (policy ${ban.policy})`)
  },
})

const app = express()
app.post('/login', loginLimit, (_req, res) => {
  res.json({ ok: true })
})
// Who was banned since the server started, and a way to lift a ban early (on every server sharing the store).
app.get('/admin/banned', (_req, res) => {
  res.json({ banned })
})
app.post('/admin/unban', async (req, res) => {
  await loginLimit.unban(String(req.query.ip))
  res.json({ unbanned: req.query.ip })
})

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', (error) => {
  if (error) throw error
  console.log(`bans listening on http://127.0.0.1:${server.address().port}`)
})
const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)

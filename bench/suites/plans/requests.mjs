/** The requests of the plans suite: 1,000 API keys, each a `GET /v1/items` from one address carrying its key. */
export const API_KEYS = Array.from({ length: 1000 }, (_, i) => `key-${i}`)

/** A request as core's handler sees it, with its API key on the native request. */
export const request = (apiKey) => ({
  ip: '203.0.113.7',
  method: 'GET',
  route: '/v1/items',
  path: '/v1/items',
  headers: {},
  native: { apiKey },
})

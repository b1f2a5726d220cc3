import type { RequestInfo } from '../src/index.js'

/** A request as an adapter describes it to core's handler: a GET of `/` from `ip` (none: `undefined`). */
export const requestFrom = (ip: string | undefined): RequestInfo<any> => ({
  ip,
  method: 'GET',
  route: '/',
  path: '/',
  headers: {},
  native: {},
})

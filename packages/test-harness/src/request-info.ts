import type { RequestInfo } from '@floodgate/core'

/** A request as core's handler sees it: `GET /` from `ip`, no headers; `over` replaces any field. */
export function requestInfo(ip = '203.0.113.7', over: Partial<RequestInfo<unknown>> = {}): RequestInfo<any> {
  return { ip, method: 'GET', route: '/', path: '/', headers: {}, native: {}, ...over }
}

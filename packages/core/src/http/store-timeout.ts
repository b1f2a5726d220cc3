import { RateLimitRequestError } from './errors.js'

/**
 * Bound a store's answer by `timeoutMs`: past it, the promise rejects with `ERR_FLOODGATE_STORE_TIMEOUT`
 * (and `failMode` decides). The timer never keeps the process alive. `undefined` waits forever.
 */
export function compileStoreTimeout(timeoutMs: number | undefined): <T>(promise: Promise<T>) => Promise<T> {
  if (timeoutMs === undefined) return (promise) => promise
  const message = `The store did not answer within ${timeoutMs} ms`
  return <T>(promise: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new RateLimitRequestError('ERR_FLOODGATE_STORE_TIMEOUT', message))
      }, timeoutMs)
      ;(timer as { unref?: () => void }).unref?.()
      promise.then(
        (value) => {
          clearTimeout(timer)
          resolve(value)
        },
        (error) => {
          clearTimeout(timer)
          reject(error)
        },
      )
    })
}

// Rejections nobody handled while this file's tests ran (the client keeps no test harness of its own: this is
// the one helper it needs). A test clears the list first, then expects it empty.
import { afterAll, beforeAll } from 'vitest'

export function watchUnhandled(): unknown[] {
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => unhandled.push(reason)
  beforeAll(() => {
    process.on('unhandledRejection', onUnhandled)
  })
  afterAll(() => {
    process.off('unhandledRejection', onUnhandled)
  })
  return unhandled
}

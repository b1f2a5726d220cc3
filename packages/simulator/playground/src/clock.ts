/**
 * The page's clock, in whole ms since the page opened. `?clock=virtual` makes it stand still until told
 * to move (`window.__floodgate.clock.advance(ms)`), so a test advances time instead of sleeping.
 */
export interface PageClock {
  readonly virtual: boolean
  now(): number
  /** Move a virtual clock forward (a real clock cannot be moved). */
  advance(ms: number): number
  /** Called after every `advance`, so the page redraws. */
  onAdvance(listener: () => void): void
}

export function pageClock(search: string): PageClock {
  const virtual = new URLSearchParams(search).get('clock') === 'virtual'
  const origin = performance.now()
  const listeners: (() => void)[] = []
  let current = 0
  return {
    virtual,
    now: () => (virtual ? current : Math.floor(performance.now() - origin)),
    advance(ms) {
      if (!virtual)
        throw new Error('the page runs on the real clock; open it with ?clock=virtual to move time')
      if (!(Number.isFinite(ms) && ms >= 0)) throw new RangeError(`advance: expected ms >= 0, got ${ms}`)
      current += ms
      for (const listener of listeners) listener()
      return current
    },
    onAdvance: (listener) => {
      listeners.push(listener)
    },
  }
}

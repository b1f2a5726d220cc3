import { createSession, type Exchange, type Session } from '@floodgate/simulator'
import { algorithmPicker } from './algorithms.js'
import { drawBucket } from './bucket.js'
import type { PageClock } from './clock.js'
import { h, slider } from './controls.js'

const STRIP_LENGTH = 80

/** What the page lets a test read about the live panel. */
export interface LiveHandle {
  /** The decoded state now (`{ tokens: 7.5 }`). */
  state(): Record<string, number>
  /** Every exchange since the last reset, oldest first. */
  exchanges(): readonly Exchange[]
}

function chip(exchange: Exchange): HTMLElement {
  const { status, headers } = exchange.answer
  const retryAfter = headers['retry-after']
  const { delayMs, retryAfterMs } = exchange.decision
  const detail =
    status === 429
      ? retryAfter === undefined
        ? 'never fits'
        : `Retry-After: ${retryAfter}`
      : delayMs > 0
        ? `waits ${delayMs} ms`
        : `left ${headers['ratelimit-remaining'] ?? exchange.decision.remaining}`
  const node = h(
    'li',
    {
      class: `chip ${status === 200 ? 'ok' : 'refused'}`,
      'data-status': String(status),
      'data-at': String(exchange.at),
      title: `at ${exchange.at} ms${status === 429 ? `, retry in ${retryAfterMs} ms` : ''}`,
    },
    h('b', {}, String(status)),
    h('small', {}, detail),
  )
  if (retryAfter !== undefined) node.dataset.retryAfter = retryAfter
  if (status === 429) node.dataset.retryAfterMs = String(retryAfterMs)
  if (delayMs > 0) node.dataset.delayMs = String(delayMs)
  return node
}

/**
 * The live simulation: the classic token bucket by default (capacity 10, 1 token / 100 ms), any algorithm by
 * choice. Send one request or a burst; the bucket drains and refills on the page's clock; every answer
 * joins the strip of 200s and 429s with its Retry-After.
 */
export function livePanel(clock: PageClock): { element: HTMLElement; handle: LiveHandle } {
  let session: Session
  let exchanges: Exchange[] = []
  let burstSize = 15
  const bucket = h('div', { class: 'bucket', id: 'bucket' })
  const strip = h('ol', { class: 'strip', id: 'strip', 'aria-live': 'polite' })
  const headline = h('p', { class: 'headline', id: 'headline' }, 'Send a request.')
  const redraw = () => {
    bucket.innerHTML = drawBucket(session.reader, session.state(clock.now()))
  }
  const restart = () => {
    session = createSession(picker.build())
    exchanges = []
    strip.replaceChildren()
    headline.textContent = `${picker.choice().name}: a fresh key. Send a request.`
    redraw()
  }
  const picker = algorithmPicker('live', 'token-bucket', restart)
  const send = (count: number) => {
    const now = clock.now()
    let passed = 0
    for (let i = 0; i < count; i++) {
      const exchange = session.send(now)
      exchanges.push(exchange)
      if (exchange.answer.status === 200) passed++
      strip.append(chip(exchange))
    }
    while (strip.childElementCount > STRIP_LENGTH) strip.firstElementChild!.remove()
    const last = exchanges[exchanges.length - 1]!
    const retry = last.answer.headers['retry-after']
    headline.textContent =
      `At ${(now / 1000).toFixed(3)} s: ${count} sent, ${passed} passed (200), ${count - passed} refused (429)` +
      (retry === undefined
        ? '.'
        : `; the last one got Retry-After: ${retry} (${last.decision.retryAfterMs} ms).`)
    redraw()
  }
  const button = (id: string, text: string, onClick: () => void) => {
    const node = h('button', { type: 'button', id }, text)
    node.addEventListener('click', onClick)
    return node
  }
  const burstButton = button('send-burst', `Send a burst of ${burstSize}`, () => send(burstSize))
  const burstSlider = slider(
    { name: 'burst', label: 'burst size', min: 1, max: 50, step: 1, value: burstSize, unit: 'requests' },
    (value) => {
      burstSize = value
      burstButton.textContent = `Send a burst of ${value}`
    },
    'live-burst',
  )
  restart()
  clock.onAdvance(redraw)
  if (!clock.virtual) {
    const frame = () => {
      redraw()
      requestAnimationFrame(frame)
    }
    requestAnimationFrame(frame)
  }
  const element = h(
    'section',
    { class: 'live', id: 'live' },
    h('h2', {}, 'Live simulation'),
    h(
      'p',
      { class: 'lede' },
      'A token bucket of capacity 10, refilled 1 token every 100 ms. Idle, it fills to 10; a burst of 10 passes, the 11th gets 429 with Retry-After; 100 ms later one more passes. Pick another algorithm to see it answer the same clicks.',
    ),
    h(
      'div',
      { class: 'live-grid' },
      h(
        'div',
        { class: 'controls' },
        picker.element,
        burstSlider,
        h(
          'div',
          { class: 'buttons' },
          button('send-one', 'Send 1 request', () => send(1)),
          burstButton,
          button('reset', 'Reset', restart),
        ),
      ),
      bucket,
    ),
    headline,
    strip,
  )
  return {
    element,
    handle: { state: () => session.state(clock.now()), exchanges: () => exchanges },
  }
}

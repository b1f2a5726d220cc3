import { pageClock } from './clock.js'
import { h } from './controls.js'
import { type LiveHandle, livePanel } from './live.js'
import { sideBySidePanel } from './side-by-side.js'
import './style.css'

declare global {
  interface Window {
    /** For tests and the curious: the page's clock and the live panel's state. */
    __floodgate: { clock: ReturnType<typeof pageClock>; live: LiveHandle }
  }
}

const clock = pageClock(location.search)
const live = livePanel(clock)
const app = document.getElementById('app')!
app.replaceChildren(
  h(
    'header',
    {},
    h('h1', {}, 'Floodgate playground'),
    h(
      'p',
      {},
      'Every rate-limiting algorithm of @floodgate/core, running in your browser: the same code a server runs.',
    ),
  ),
  live.element,
  sideBySidePanel(),
)
window.__floodgate = { clock, live: live.handle }
document.body.dataset.ready = 'true'

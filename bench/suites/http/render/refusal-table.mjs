/** Each limiter's refusal path against its own pass path (memory stores). */
import { fmtCount, fmtRatio, mdTable, right } from '../../../lib/format.mjs'
import { FRAMEWORKS } from '../apps.mjs'
import { FRAMEWORK_IDS, PASS_AND_REFUSAL } from '../config.mjs'

export function refusalLines({ throughput }) {
  const rows = FRAMEWORK_IDS.flatMap((fw) =>
    PASS_AND_REFUSAL.map(([pass, refuse]) => {
      const p = throughput[fw][pass]
      const q = throughput[fw][refuse]
      return [
        FRAMEWORKS[fw].label,
        p.label.replace(/, memory( driver)?$/, ''),
        fmtCount(p.perSecond.median),
        fmtCount(q.perSecond.median),
        fmtRatio(q.perSecondXPass.median),
        p.cpuUsPerRequest.median.toFixed(1),
        q.cpuUsPerRequest.median.toFixed(1),
        fmtRatio(q.cpuXPass.median),
      ]
    }),
  )
  return [
    '### Refusal path against pass path',
    '',
    '**1.0x = the same limiter on its pass path** (memory store, same framework, this run). `refusal/pass` ' +
      "= refusal req/s ÷ pass req/s; `CPU` = pass CPU µs per request ÷ refusal's (both paired within a " +
      'cycle, median over cycles). At or above 1.0 the refusal costs no more than a pass.',
    '',
    mdTable(
      [
        'framework',
        'limiter (memory)',
        right('pass req/s'),
        right('refusal req/s'),
        right('refusal/pass'),
        right('pass CPU µs'),
        right('refusal CPU µs'),
        right('CPU'),
      ],
      rows,
    ),
    '',
  ]
}

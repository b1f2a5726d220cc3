/** How each server is configured, as code, and where the CPU profiles are. */
import { FRAMEWORKS } from '../apps.mjs'
import { CONFIGURATIONS, FRAMEWORK_IDS } from '../config.mjs'

export function configurationLines({ throughput }, { profileReport = false } = {}) {
  const lines = [
    "How each server is configured (`limit` = the row's quota per minute; peers with their default headers):",
    '',
  ]
  for (const fw of FRAMEWORK_IDS) {
    for (const c of CONFIGURATIONS.filter((x) => throughput[fw][x.id] && !x.id.endsWith('refuse'))) {
      lines.push(`- ${FRAMEWORKS[fw].label}, ${throughput[fw][c.id].label}: \`${throughput[fw][c.id].how}\``)
    }
  }
  if (profileReport) {
    lines.push(
      '',
      'Where a Floodgate server spends its time: `bench/results/http.profile.md` (`node bench/suites/http.mjs --profile`).',
    )
  }
  return lines
}

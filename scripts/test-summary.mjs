// Reads vitest's JSON report and prints the one line CI reads: `tests: N passed, N failed`.
// Exits non-zero when the test command failed, or when no test ran at all.
import { existsSync, readFileSync } from 'node:fs'

const [reportPath = '.vitest-report.json', statusArg = '0'] = process.argv.slice(2)
const status = Number(statusArg)

if (!existsSync(reportPath)) {
  console.log('no test report: the build, typecheck or lint step failed before vitest ran')
  console.log('tests: 0 passed, 1 failed')
  process.exit(status === 0 ? 1 : status)
}
const report = JSON.parse(readFileSync(reportPath, 'utf8'))
const passed = report.numPassedTests ?? 0
// A file that failed without a failed test (it did not load, a hook threw) counts once; a failed test
// counts once, not again for its file.
const brokenFiles = (report.testResults ?? []).filter(
  (file) => file.status === 'failed' && !(file.assertionResults ?? []).some((a) => a.status === 'failed'),
).length
const failed = (report.numFailedTests ?? 0) + brokenFiles
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0)
console.log(`tests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
process.exit(status !== 0 ? status : failed > 0 || passed === 0 ? 1 : 0)

// Runs before the conformance suite under packed-adapter-suite.config.ts: each name the suite imports
// (`@floodgate/express`, `express4`, ...) must load the very module of the app's file it is aliased to (the same
// exports, not a copy), or the suite would be testing the workspace. Writes what it checked beside the report,
// for the test that started this run to read.
import { writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { inject } from 'vitest'

declare module 'vitest' {
  export interface ProvidedContext {
    /** Each name the suite imports -> the file of the app it must load. */
    packedFiles: Record<string, string>
  }
}

const files = inject('packedFiles')
for (const [specifier, file] of Object.entries(files)) {
  const viaName = await import(/* @vite-ignore */ specifier)
  const viaFile = await import(/* @vite-ignore */ pathToFileURL(file).href)
  const keys = Object.keys(viaFile)
  const same = keys.length > 0 && keys.every((key) => viaName[key] === viaFile[key])
  if (!same) throw new Error(`${specifier} does not load ${file}: the suite would not run the app's copy.`)
}
const report = process.env.FLOODGATE_PACKED_REPORT
if (report) writeFileSync(`${report}.resolved.json`, `${JSON.stringify(files, null, 2)}\n`)

import { packageBuild } from '../../tsup.package.js'

// ESM only: vitest, which the suite registers with, cannot be loaded by require().
export default packageBuild(['src/index.ts'], { format: ['esm'] })

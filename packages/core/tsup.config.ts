import { packageBuild } from '../../tsup.package.js'

// The public entry and the plumbing Floodgate's own packages share (`@floodgate/core/internal`).
export default packageBuild(['src/index.ts', 'src/internal.ts'])

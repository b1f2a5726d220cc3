import { packageBuild } from '../../tsup.package.js'

// The main entry runs in browsers too; the undici interceptor has its own (`@floodgate/client/undici`).
export default packageBuild(['src/index.ts', 'src/undici.ts'], { target: 'es2022', splitting: false })

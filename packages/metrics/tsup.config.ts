import { packageBuild } from '../../tsup.package.js'

// One entry per binding, so importing one never loads the other's peer.
export default packageBuild(['src/index.ts', 'src/prometheus.ts', 'src/opentelemetry.ts'])

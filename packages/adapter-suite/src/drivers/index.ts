import { expressDriver } from './express.js'
import { fastifyDriver } from './fastify.js'
import { koaDriver } from './koa.js'

export { expressDriver, fastifyDriver, koaDriver }

/** The three adapters' drivers: every conformance scenario and regression runs against each. */
export const drivers = [expressDriver, fastifyDriver, koaDriver]

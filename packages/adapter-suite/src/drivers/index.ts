import { express4Driver, expressDriver } from './express.js'
import { fastifyDriver } from './fastify.js'
import { koa2Driver, koaDriver } from './koa.js'

export { express4Driver, expressDriver, fastifyDriver, koa2Driver, koaDriver }

/**
 * A driver for each supported framework major: Express 5 and 4, Fastify 5, Koa 3 and 2. Every conformance
 * scenario and regression runs against each.
 */
export const drivers = [expressDriver, express4Driver, fastifyDriver, koaDriver, koa2Driver]

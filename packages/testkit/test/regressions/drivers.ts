// The three adapters' test drivers: every regression runs against each of them.
import { expressDriver } from '../../../express/test/driver.js'
import { fastifyDriver } from '../../../fastify/test/driver.js'
import { koaDriver } from '../../../koa/test/driver.js'

export const drivers = [expressDriver, fastifyDriver, koaDriver]

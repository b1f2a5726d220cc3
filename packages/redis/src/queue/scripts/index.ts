import { ACK, CLAIM, FAIL, RENEW } from './consume.js'
import { ENQUEUE, STATUS } from './produce.js'
import { REAP } from './reap.js'

export { ACK, CLAIM, ENQUEUE, FAIL, REAP, RENEW, STATUS }

/** Every script of the Redis queue (a test checks each SHA1 against `SCRIPT LOAD`). */
export const QUEUE_SCRIPTS = [ENQUEUE, STATUS, CLAIM, RENEW, ACK, FAIL, REAP] as const

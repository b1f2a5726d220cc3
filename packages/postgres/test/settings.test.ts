import { describe, expect, it } from 'vitest'
import { schemaForTests } from './helpers/database.js'

// What a call sets for its own transaction, seen from inside one: lock_timeout always, synchronous_commit off
// unless the store asks for durable commits; nothing outlives the call's transaction.
const db = schemaForTests({ pool: { max: 1 } })

async function settingsAfterDecide(durable: boolean) {
  const client = await db.pool.connect()
  try {
    await client.query('BEGIN')
    await client.query(
      `SELECT * FROM "${db.schema}".floodgate_decide('k', 'fw:5,60000', 'fixed-window', 'c', NULL, 1, 0, '75', $1, 5, 60000, NULL, NULL)`,
      [durable],
    )
    const inside = await client.query(
      `SELECT current_setting('lock_timeout') AS lock, current_setting('synchronous_commit') AS sync`,
    )
    await client.query('ROLLBACK')
    const after = await client.query(
      `SELECT current_setting('lock_timeout') AS lock, current_setting('synchronous_commit') AS sync`,
    )
    return { inside: inside.rows[0], after: after.rows[0] }
  } finally {
    client.release()
  }
}

describe('per-call settings', () => {
  it('lock_timeout and synchronous_commit = off, for the call only', async () => {
    const { inside, after } = await settingsAfterDecide(false)
    expect(inside).toEqual({ lock: '75ms', sync: 'off' })
    expect(after).toEqual({ lock: '0', sync: 'on' })
  })

  it('with synchronousCommit: true the server setting stays', async () => {
    const { inside } = await settingsAfterDecide(true)
    expect(inside).toEqual({ lock: '75ms', sync: 'on' })
  })
})

import { CallFailure, Deadlines, type Settled, settle } from '@floodgate/core/internal'
import { classify, PostgresStoreError } from './errors.js'
import type { PostgresPool, StoreQuery } from './options.js'
import type { Location } from './sql/location.js'
import { TYPES } from './wire.js'

/**
 * The deadlines of a PostgresStore's calls, bounded by `timeoutMs` until a limiter sets the store's bound; a
 * call past it settles with `ERR_FLOODGATE_POSTGRES_TIMEOUT`.
 */
export function postgresDeadlines(timeoutMs: number): Deadlines {
  return new Deadlines(
    timeoutMs,
    (ms) =>
      new CallFailure(
        new PostgresStoreError('ERR_FLOODGATE_POSTGRES_TIMEOUT', `PostgreSQL did not answer within ${ms} ms`),
        true,
        true,
      ),
  )
}

/**
 * Runs the store's statements on the pool, each bounded by its `deadlines` (checking out a connection included):
 * it settles with the rows or a {@link CallFailure}, never rejects, never waits longer. A connection is given
 * back to the pool after an answer, error replies included (the connection is fine), and discarded after a
 * connection error or a timeout: a connection whose statement is still running, or whose server is gone,
 * must not be handed to anyone else, and the pool opens a fresh one when it needs it.
 */
export class QueryRunner {
  constructor(
    private readonly pool: PostgresPool,
    private readonly location: Location,
    private readonly deadlines: Deadlines,
  ) {}

  /** Run one statement; settles with its rows (arrays) or a {@link CallFailure}. */
  run(statement: Pick<StoreQuery, 'name' | 'text'>, values: unknown[]): Promise<Settled> {
    return new Promise((resolve) => {
      // Set while this call holds a connection; whoever settles first (the answer or the deadline) gives
      // it back (or discards it), exactly once.
      let release: ((error?: Error) => void) | undefined
      const giveBack = (error?: Error) => {
        const r = release
        release = undefined
        r?.(error)
      }
      const pending = this.deadlines.start((settled) => {
        if (release && settled instanceof CallFailure) giveBack(asError(settled.error))
        resolve(settled)
      })
      const query: StoreQuery = { ...statement, values, rowMode: 'array', types: TYPES }
      try {
        this.pool.connect((error, client, done) => {
          if (error || !client) {
            settle(pending, new CallFailure(error ?? new Error('The pool gave no client'), false, true))
            return
          }
          if (pending.done) {
            done() // the deadline passed while waiting for a connection: it was never used
            return
          }
          release = done
          try {
            client.query(query, (error, result) => {
              if (!release) return // the deadline passed: the connection was discarded
              if (!error) {
                giveBack()
                settle(pending, result.rows)
                return
              }
              const failure = classify(error, this.location)
              if (failure.outage) giveBack(error)
              else giveBack()
              settle(pending, failure)
            })
          } catch (error) {
            settle(pending, new CallFailure(error, false, true))
          }
        })
      } catch (error) {
        settle(pending, new CallFailure(error, false, true))
      }
    })
  }
}

const asError = (error: unknown) => (error instanceof Error ? error : new Error(String(error)))

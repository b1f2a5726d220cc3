import * as z from 'zod'
import { IDENTIFIER, MAX_TABLE_LENGTH } from './sql/location.js'

const identifier = (expected: string, maxLength: number) =>
  z
    .string({ error: expected })
    .refine((v) => IDENTIFIER.test(v) && v.length <= maxLength, { error: expected })

/** A schema name: lower-case letters, digits and `_`, at most 63 characters. */
export const schemaName = () =>
  identifier('a schema name of lower-case letters, digits and _ (at most 63, not starting with a digit)', 63)

/** A table name: as a schema name, but short enough for the names of the functions made after it. */
export const tableName = () =>
  identifier(
    `a table name of lower-case letters, digits and _ (at most ${MAX_TABLE_LENGTH}, not starting with a digit)`,
    MAX_TABLE_LENGTH,
  )

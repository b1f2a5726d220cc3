import { type Location, qualified } from './location.js'

/**
 * The settings documents (a limiter's runtime overrides): a row per field, under the document's name, and its
 * version in the field `#version` (no setting's field starts with `#`). Created by the migration, if missing.
 */
export const settingsTableSql = (
  location: Location,
) => `CREATE TABLE IF NOT EXISTS ${qualified(location, '_settings')} (
  name text COLLATE "C" NOT NULL,
  field text COLLATE "C" NOT NULL,
  value text NOT NULL,
  PRIMARY KEY (name, field)
);`

/** The store's statements on the settings table. */
export function settingsStatements(location: Location) {
  const table = qualified(location, '_settings')
  return {
    /**
     * The document `$1`: every row, or only its version row when `$2` is its version already (nothing changed).
     */
    read: {
      name: `${location.schema}.${location.table}.settings_read`,
      text: `SELECT field, value FROM ${table} WHERE name = $1 AND (field = '#version' OR NOT EXISTS (
  SELECT FROM ${table} WHERE name = $1 AND field = '#version' AND value = $2))`,
    },
    /** Set field `$2` to `$3` (`$4` true) or delete it (`$4` false), and bump the version: one statement. */
    write: {
      name: `${location.schema}.${location.table}.settings_write`,
      text: `WITH gone AS (DELETE FROM ${table} WHERE NOT $4::boolean AND name = $1 AND field = $2),
kept AS (INSERT INTO ${table} (name, field, value) SELECT $1, $2, $3 WHERE $4::boolean
  ON CONFLICT (name, field) DO UPDATE SET value = EXCLUDED.value)
INSERT INTO ${table} AS s (name, field, value) VALUES ($1, '#version', '1')
ON CONFLICT (name, field) DO UPDATE SET value = (s.value::bigint + 1)::text
RETURNING value`,
    },
  }
}

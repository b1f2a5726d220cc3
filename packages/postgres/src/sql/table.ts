import { type Location, local, qualified } from './location.js'

/**
 * The table, its expiry index and the step result type, created if missing. Re-running changes nothing but
 * the table's persistence when asked (`unlogged`), and takes no table lock when there is nothing to do.
 *
 * - `key` and `algorithm` (the algorithm's id: kind and parameters) are the primary key, compared byte-wise
 *   (`COLLATE "C"`): two different strings are never one key, whatever the database's collation.
 * - `state` is the algorithm's numbers as `float8[]`, exactly the doubles the TypeScript keeps.
 * - `expires_at` is when the row may be swept, in ms on the database's clock; the index on it lets a sweep
 *   find the longest expired rows without reading the others.
 * - `fillfactor` leaves room in each page, so that an update that leaves `expires_at` alone (the window
 *   algorithms, within one window) can stay on its page without touching an index (a HOT update).
 */
export const tableSql = (location: Location, unlogged: boolean) => {
  const table = qualified(location)
  const persistence = unlogged ? 'u' : 'p'
  return `DO $schema$
BEGIN
  -- Checked first: CREATE SCHEMA IF NOT EXISTS would ask for the right to create schemas even when it exists.
  IF NOT EXISTS (SELECT FROM pg_namespace WHERE nspname = '${location.schema}') THEN
    CREATE SCHEMA "${location.schema}";
  END IF;
END
$schema$;
CREATE ${unlogged ? 'UNLOGGED ' : ''}TABLE IF NOT EXISTS ${table} (
  key text COLLATE "C" NOT NULL,
  algorithm text COLLATE "C" NOT NULL,
  state float8[],
  expires_at float8 NOT NULL,
  PRIMARY KEY (key, algorithm)
) WITH (fillfactor = 70);
DO $table$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_indexes WHERE schemaname = '${location.schema}'
      AND indexname = '${location.table}_expires_at') THEN
    CREATE INDEX ${local(location, '_expires_at')} ON ${table} (expires_at);
  END IF;
  IF (SELECT relpersistence FROM pg_class WHERE oid = '${table}'::regclass) <> '${persistence}' THEN
    ALTER TABLE ${table} SET ${unlogged ? 'UNLOGGED' : 'LOGGED'};
  END IF;
  IF NOT EXISTS (SELECT FROM pg_type WHERE typnamespace = '"${location.schema}"'::regnamespace
      AND typname = '${location.table}_result') THEN
    CREATE TYPE ${qualified(location, '_result')} AS (
      allowed boolean, remaining float8, reset_ms float8, retry_after_ms float8, delay_ms float8,
      next_state float8[], ttl float8, write boolean
    );
  END IF;
END
$table$;
`
}

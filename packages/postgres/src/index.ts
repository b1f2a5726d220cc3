export { PostgresStoreError, type PostgresStoreErrorCode } from './errors.js'
export {
  MIGRATION_SQL,
  MIGRATION_VERSION,
  type MigrationOptions,
  migrate,
  migrationSql,
  type Queryable,
} from './migration.js'
export type {
  PostgresClient,
  PostgresPool,
  PostgresStoreErrorEvent,
  PostgresStoreOptions,
  StoreQuery,
  SweepOptions,
} from './options.js'
export { PostgresStore } from './store.js'
export type { DecisionSource, PostgresDecision } from './wire.js'

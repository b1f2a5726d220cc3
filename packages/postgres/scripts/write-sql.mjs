// Writes sql/floodgate.sql, the migration for the default schema and table (public.floodgate), from the built
// package, as part of the build (`tsup && node scripts/write-sql.mjs`): the file ships in the package for
// those who run SQL themselves, and is made from the same source as `migrationSql()`, never kept by hand.
import { mkdirSync, writeFileSync } from 'node:fs'
import { MIGRATION_SQL } from '../dist/index.js'

const file = new URL('../sql/floodgate.sql', import.meta.url)
mkdirSync(new URL('../sql/', import.meta.url), { recursive: true })
writeFileSync(file, MIGRATION_SQL)
console.log(`wrote ${file.pathname}`)

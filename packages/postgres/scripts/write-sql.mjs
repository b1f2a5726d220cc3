// Writes sql/floodgate.sql, the migration for the default schema and table (public.floodgate), from the built
// package: `npx tsup && node scripts/write-sql.mjs`. A test fails when the checked-in file is stale.
import { writeFileSync } from 'node:fs'
import { MIGRATION_SQL } from '../dist/index.js'

const file = new URL('../sql/floodgate.sql', import.meta.url)
writeFileSync(file, MIGRATION_SQL)
console.log(`wrote ${file.pathname}`)

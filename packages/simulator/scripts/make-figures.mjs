#!/usr/bin/env node
// Write the docs' pictures (docs/images/*.svg) from scripts/figures.mjs. Needs the built packages:
//   npx -y pnpm@12.4.2 exec turbo run build --filter=@floodgate/simulator
//   node packages/simulator/scripts/make-figures.mjs

import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { figures } from './figures.mjs'

const images = fileURLToPath(new URL('../../../docs/images/', import.meta.url))
fs.mkdirSync(images, { recursive: true })
for (const { file, svg } of figures()) {
  fs.writeFileSync(path.join(images, file), `${svg}\n`)
  console.error(`wrote docs/images/${file}`)
}

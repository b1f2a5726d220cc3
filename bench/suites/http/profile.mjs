/**
 * Summarise a V8 `.cpuprofile` (from `node --cpu-prof`): where the server process spent its samples, as
 * self time per function (Floodgate's bundled frames mapped back to their TypeScript source through the
 * dist source maps) and as inclusive time per area (Floodgate, the framework, Node's HTTP internals, GC...).
 */
import fs from 'node:fs'
import { SourceMap } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { repoRoot } from '../../lib/env.mjs'

const maps = new Map()
function sourceMapOf(file) {
  if (!maps.has(file)) {
    let map
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')))
    } catch {
      map = undefined
    }
    maps.set(file, map)
  }
  return maps.get(file)
}

function fileOf(url) {
  if (!url) return ''
  try {
    return url.startsWith('file:') ? fileURLToPath(url) : url
  } catch {
    return url
  }
}

/** Which part of the process a frame belongs to. */
export function areaOf(callFrame) {
  const { url, functionName } = callFrame
  if (!url) {
    if (functionName === '(garbage collector)') return 'GC'
    if (functionName === '(idle)') return 'idle'
    if (functionName === '(program)') return 'V8/native (program)'
    return 'V8/native'
  }
  if (url.startsWith('node:')) {
    if (/node:(_http|http|net|stream|internal\/(http|streams|net|stream_base|js_stream))/.test(url))
      return 'node http/net/streams'
    return 'node (other internals)'
  }
  const file = fileOf(url)
  const ws = /packages\/([^/]+)\/dist\//.exec(file)
  if (ws && !file.includes('node_modules/.pnpm')) return `@floodgate/${ws[1]}`
  const mod = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(file)
  if (mod) return mod[1]
  if (file.includes('/bench/')) return 'bench harness'
  return 'other'
}

/** A readable name for a frame: `name (file:line)`, mapped to the TypeScript source when there is a map. */
export function frameName(callFrame) {
  const { url, functionName, lineNumber, columnNumber } = callFrame
  const name = functionName || '(anonymous)'
  if (!url) return name
  const file = fileOf(url)
  if (/packages\/[^/]+\/dist\//.test(file)) {
    const entry = sourceMapOf(file)?.findEntry(lineNumber, columnNumber)
    if (entry?.originalSource) {
      const src = path.relative(
        repoRoot,
        path.resolve(path.dirname(file), entry.originalSource.replace(/^file:\/\//, '')),
      )
      return `${name} (${src}:${entry.originalLine + 1})`
    }
  }
  const rel = file.startsWith('node:')
    ? file
    : file.includes('node_modules/')
      ? file.slice(file.lastIndexOf('node_modules/') + 'node_modules/'.length)
      : path.relative(repoRoot, file)
  return `${name} (${rel}:${lineNumber + 1})`
}

/**
 * `{ totalMs, idleMs, self: [{ name, area, ms, share }], areas: [{ area, selfMs, inclusiveMs, ... }] }`:
 * shares are of the non-idle samples.
 */
export function summarizeProfile(file, { top = 25 } = {}) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'))
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const selfByFrame = new Map()
  const selfByArea = new Map()
  const inclByArea = new Map()
  let busyUs = 0
  let idleUs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const dt = profile.timeDeltas[i] ?? 0
    const node = nodes.get(profile.samples[i])
    const area = areaOf(node.callFrame)
    if (area === 'idle') {
      idleUs += dt
      continue
    }
    busyUs += dt
    const name = frameName(node.callFrame)
    const key = `${area}\u0000${name}`
    selfByFrame.set(key, (selfByFrame.get(key) ?? 0) + dt)
    selfByArea.set(area, (selfByArea.get(area) ?? 0) + dt)
    const seen = new Set()
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const a = areaOf(nodes.get(id).callFrame)
      if (a === 'V8/native' && id !== node.id) continue
      seen.add(a)
    }
    for (const a of seen) inclByArea.set(a, (inclByArea.get(a) ?? 0) + dt)
  }
  const share = (us) => us / busyUs
  const byName = new Map()
  for (const [key, us] of selfByFrame) {
    const name = key.split('\u0000')[1]
    byName.set(name, (byName.get(name) ?? 0) + us)
  }
  return {
    /** Self time per function name (every frame of that name together). */
    selfAll: [...byName].map(([name, us]) => ({ name, share: share(us) })),
    busyMs: busyUs / 1000,
    idleMs: idleUs / 1000,
    self: [...selfByFrame]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([key, us]) => {
        const [area, name] = key.split('\u0000')
        return { name, area, ms: us / 1000, share: share(us) }
      }),
    areas: [...inclByArea]
      .sort((a, b) => b[1] - a[1])
      .map(([area, us]) => ({
        area,
        inclusiveMs: us / 1000,
        inclusiveShare: share(us),
        selfMs: (selfByArea.get(area) ?? 0) / 1000,
        selfShare: share(selfByArea.get(area) ?? 0),
      })),
  }
}

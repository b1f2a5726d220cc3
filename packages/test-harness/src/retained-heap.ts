import { execFile } from 'node:child_process'
import { bundleFixture } from './fork-fixture.js'

/** What a heap probe reports (see `probeRetainedHeap` in `@floodgate/test-harness/heap-probe`). */
export interface RetainedHeap {
  /** `heapUsed` after feeding, less `heapUsed` before, both after full garbage collections, in bytes. */
  readonly retained: number
  /** How many hostile inputs were fed. */
  readonly fed: number
}

/** A heap probe, bundled once: each `measure` runs it in a process of its own. */
export interface HeapProbe {
  /** Run the probe with `args` in a fresh `node --expose-gc` and resolve with what it reported. */
  measure(...args: string[]): Promise<RetainedHeap>
  /** Delete the bundle. */
  remove(): void
}

/**
 * Prepare a heap probe: bundle the fixture `entry` (its `@floodgate/*` imports from the TypeScript sources,
 * `external` left as imports: see {@link bundleFixture}). Each `measure(...args)` runs it in a Node process
 * of its own started with `--expose-gc`, so what one run leaves behind never counts in another. The fixture
 * calls `probeRetainedHeap` from `@floodgate/test-harness/heap-probe`.
 *
 * @example
 * const probe = await heapProbe({ entry: new URL('./fixtures/hostile-requests.ts', import.meta.url), external: ['express'] })
 * const { retained } = await probe.measure('handler', 'plan-keys', '100')
 * expect(retained).toBeLessThan(bound)
 * probe.remove()
 */
export async function heapProbe(options: { entry: URL; external?: string[] }): Promise<HeapProbe> {
  const bundle = await bundleFixture({ entry: options.entry, external: options.external ?? [] })
  return {
    measure: (...args) =>
      new Promise<RetainedHeap>((resolve, reject) => {
        execFile(
          process.execPath,
          ['--expose-gc', bundle.file, ...args],
          // A probe of a store that warns once per failure writes a lot before it is fixed: room to fail by
          // its measure, not by its output.
          { timeout: 60_000, maxBuffer: 256 << 20 },
          (error, stdout, stderr) => {
            if (error) {
              reject(
                new Error(
                  `the heap probe ${args.join(' ')} failed: ${error.message}\n${stderr.slice(-4000)}`,
                ),
              )
              return
            }
            const lines = stdout.trim().split('\n')
            resolve(JSON.parse(lines[lines.length - 1]!) as RetainedHeap)
          },
        )
      }),
    remove: bundle.remove,
  }
}

// The child side of `heapProbe`: a fixture builds the real thing through the public API, and this
// measures what feeding it hostile input leaves on the heap. Imported by fixtures
// (`@floodgate/test-harness/heap-probe`), bundled and run with `--expose-gc`; nothing here imports vitest.

const gc = (globalThis as { gc?: () => void }).gc

/** `heapUsed` after full collections (several: weak references and finalisers settle over more than one). */
async function settledHeap(): Promise<number> {
  if (gc === undefined) throw new Error('the heap probe needs node --expose-gc')
  for (let i = 0; i < 4; i++) {
    gc()
    await new Promise((resolve) => setImmediate(resolve))
  }
  return process.memoryUsage().heapUsed
}

/**
 * Measure what a thing keeps of hostile input: `build` it, `warm` it up with ordinary input (so compiled code
 * and the structures every request needs are in place before the first reading), read the heap, `feed` it the
 * hostile input (each piece made inside the loop, so nothing but the thing can hold it), read the heap again,
 * then `close` it. Prints `{ retained, fed }` as the last line of stdout for the parent, and exits.
 *
 * @example
 * await probeRetainedHeap({
 *   build: () => createRateLimitHandler({ ... }),
 *   warm: (handler) => handler.handle(request('ordinary')),
 *   feed: async (handler) => { for (let i = 0; i < 1500; i++) await handler.handle(request(hostileKey(i))) },
 *   fed: 1500,
 * })
 */
export async function probeRetainedHeap<T>(parts: {
  build: () => T | Promise<T>
  warm?: (thing: T) => unknown
  feed: (thing: T) => unknown
  fed: number
  close?: (thing: T) => unknown
}): Promise<void> {
  const thing = await parts.build()
  await parts.warm?.(thing)
  const before = await settledHeap()
  await parts.feed(thing)
  const after = await settledHeap()
  await parts.close?.(thing)
  process.stdout.write(`\n${JSON.stringify({ retained: after - before, fed: parts.fed })}\n`)
  process.exit(0)
}

/**
 * A string of `length` characters unique to `i` (its number first, so no two share a prefix a cache could
 * keep alone), made anew on every call: what a hostile client sends as an API key, a path or a header.
 */
export function hostileText(i: number, length: number, alphabet = 'k'): string {
  const head = `${i.toString(36)}-`
  return (
    head + alphabet.repeat(Math.ceil((length - head.length) / alphabet.length)).slice(0, length - head.length)
  )
}

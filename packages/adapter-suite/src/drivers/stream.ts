import { Readable } from 'node:stream'
import type { RequestRateLimit } from '@floodgate/core'
import type { AdapterRoute } from '../types.js'

/**
 * A route's streamed body (`AdapterRoute.stream`): its chunks, then, once the last is out, the request's cost
 * settled with what the app reads of its limit, as an LLM API does with the tokens it counted.
 */
export function streamOf(
  stream: NonNullable<AdapterRoute['stream']>,
  rateLimit: () => RequestRateLimit | null | undefined,
): Readable {
  async function* chunks() {
    for (const chunk of stream.chunks) yield chunk
    if (stream.settle !== undefined) rateLimit()?.settle(stream.settle)
  }
  return Readable.from(chunks())
}

import { ownCopy } from '../store-keys/own-copy.js'
import type { AllowList } from './allow-list.js'
import { ipKey, parseIp } from './ip.js'
import { KEPT_KEYS } from './key-spec.js'

/** What a client address gave: its key (`undefined` when the allow list has it), and whether it is allowed. */
export interface ClientAddress {
  readonly ip: string | undefined
  readonly allowed: boolean
}

/** The longest address kept: an IPv6 address with an IPv4 tail and a zone. */
const MAX_ADDRESS_LENGTH = 64

/**
 * What the addresses seen lately gave, by address as the request carries it: a client's requests after its
 * first are parsed no more, and each gets the same key string, which policies keyed by address find their store
 * keys by. At most KEPT_KEYS are kept, each under a copy of its own (never a view of a longer header). The
 * handler looks an address up in `seen` itself (a call there costs a hot path 2% of a decision) and calls
 * `parse` for one it has not seen, which answers `undefined` for what is not an address (never one shared key).
 */
export function compileClientAddresses(parts: {
  allowList: AllowList | undefined
  /** The `ipv6Subnet` option: the prefix an IPv6 client is keyed by, `false` for the whole address. */
  ipv6Subnet: number | false
}): {
  readonly seen: Map<string, ClientAddress>
  parse(raw: string | undefined): ClientAddress | undefined
} {
  const { allowList } = parts
  const ipv6Subnet = parts.ipv6Subnet === false ? 128 : parts.ipv6Subnet
  const seen = new Map<string, ClientAddress>()
  return {
    seen,
    parse(raw) {
      const parsed = parseIp(raw)
      if (parsed === undefined) return undefined
      const allowed = allowList?.has(parsed) === true
      // A copy of its own: an IPv4 key is the request's own string, which can be a view of a whole
      // X-Forwarded-For header; kept in `seen`, it would keep that header alive.
      const address = { ip: allowed ? undefined : ownCopy(ipKey(parsed, ipv6Subnet)), allowed }
      if (typeof raw === 'string' && keptLength(raw)) {
        if (seen.size >= KEPT_KEYS) seen.clear()
        seen.set(ownCopy(raw), address)
      }
      return address
    },
  }
}

/** Whether `raw` may be in `seen` (an address that long is never kept). */
export const keptLength = (raw: string): boolean => raw.length <= MAX_ADDRESS_LENGTH

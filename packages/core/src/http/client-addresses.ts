import { ownCopy } from '../store-keys/own-copy.js'
import type { AllowList } from './allow-list.js'
import { ipKey, parseIp } from './ip.js'
import { KEPT_KEYS } from './key-spec.js'

/** The longest address kept: an IPv6 address with an IPv4 tail and a zone. */
const MAX_ADDRESS_LENGTH = 64

/**
 * What a client address gave: its key (`undefined` when a list has it), and whether the deny list or the allow
 * list has it.
 */
export interface ClientAddress {
  readonly ip: string | undefined
  readonly denied: boolean
  readonly allowed: boolean
}

/**
 * Compile how a limiter reads client addresses: `addressOf(raw)` parses an address as the request carries it
 * (`undefined` for what is not an address: never one shared key), tells whether the deny list or the allow list
 * has it, and gives the key string it is counted under (its IPv6 prefix per `ipv6Subnet`).
 *
 * The addresses seen lately are kept by the text the request carries: a client's requests after its first are
 * parsed no more, and each gets the same key string (which an address keyer finds its store key by). At most
 * KEPT_KEYS, each kept under a copy of its own (never a view of a longer header); an address longer than any
 * real one is never kept.
 */
export function compileClientAddresses(parts: {
  allowList: AllowList | undefined
  denyList: AllowList | undefined
  /** The `ipv6Subnet` option: the prefix an IPv6 client is keyed by, `false` for the whole address. */
  ipv6Subnet: number | false
}): (raw: string | undefined) => ClientAddress | undefined {
  const { allowList, denyList } = parts
  const ipv6Subnet = parts.ipv6Subnet === false ? 128 : parts.ipv6Subnet
  const seen = new Map<string, ClientAddress>()

  function parseAddress(raw: string | undefined): ClientAddress | undefined {
    const parsed = parseIp(raw)
    if (parsed === undefined) return undefined
    const denied = denyList?.has(parsed) === true
    const allowed = !denied && allowList?.has(parsed) === true
    // A copy of its own: an IPv4 key is the request's own string, which can be a view of a whole
    // X-Forwarded-For header; kept in `seen`, it would keep that header alive.
    const ip = denied || allowed ? undefined : ownCopy(ipKey(parsed, ipv6Subnet))
    const address = { ip, denied, allowed }
    if (typeof raw === 'string' && raw.length <= MAX_ADDRESS_LENGTH) {
      if (seen.size >= KEPT_KEYS) seen.clear()
      seen.set(ownCopy(raw), address)
    }
    return address
  }

  return (raw) =>
    (typeof raw === 'string' && raw.length <= MAX_ADDRESS_LENGTH ? seen.get(raw) : undefined) ??
    parseAddress(raw)
}

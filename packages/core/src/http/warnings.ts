import type { RequestInfo } from './request-info.js'

/**
 * Misconfiguration warnings: a setup that works but limits the wrong clients (every client in one bucket,
 * clients that pick their own bucket). Each is a process warning (`process.emitWarning`, type
 * `FloodgateWarning`) with a stable code, raised once per process, and can be turned off by name.
 */

/** The warnings, by the name the `warnings` option turns them off with. */
export const WARNINGS = {
  /** `X-Forwarded-For` arrives, but the framework trusts no proxy: everyone behind the proxy is one client. */
  forwardedHeader: 'ERR_FLOODGATE_FORWARDED_HEADER_IGNORED',
  /** The framework trusts every proxy: any client picks its own address (and bucket) with `X-Forwarded-For`. */
  permissiveTrustProxy: 'ERR_FLOODGATE_PERMISSIVE_TRUST_PROXY',
  /** A hop count as Fastify's `trustProxy`: Fastify 5 ignores it, so every client is the proxy. */
  hopCountTrustProxy: 'ERR_FLOODGATE_HOP_COUNT_TRUST_PROXY',
  /** An `'endpoint'` key where the route pattern cannot be known: such requests share one bucket per method. */
  unknownEndpoint: 'ERR_FLOODGATE_ENDPOINT_UNKNOWN',
} as const

export type WarningName = keyof typeof WARNINGS
export type WarningCode = (typeof WARNINGS)[WarningName]

/** Where every code is explained, with its cause and fix. */
export const ERRORS_DOC = 'docs/errors.md'

/**
 * The most codes a record of warnings raised keeps (the process-wide one here, each `onError`-less limiter's
 * in `report.ts`): past it, a new code is not warned about. A code is a string of at most
 * {@link MAX_CODE_LENGTH} characters; any other is reported under {@link FALLBACK_CODE}. So an error whose
 * code a client shapes cannot make such a record grow.
 */
export const MAX_WARNED_CODES = 64
export const MAX_CODE_LENGTH = 64
export const FALLBACK_CODE = 'ERR_FLOODGATE_STORE_FAILED'

/** The code a warning about `error` is raised under: its own when it is a short string, else the fallback. */
export function warningCode(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && code.length <= MAX_CODE_LENGTH ? code : FALLBACK_CODE
}

const raised = new Set<string>()

/**
 * Emit a process warning once per process and code, or per `once` when given (one warning of a code per hook,
 * say), for at most {@link MAX_WARNED_CODES} of them; a no-op where there is no `process`, as in a browser.
 */
export function warnOnce(code: string, message: string, once = code): void {
  const seen = once === code ? code : `${code} ${once}`
  if (raised.has(seen) || raised.size >= MAX_WARNED_CODES) return
  raised.add(seen)
  const emit = (globalThis as { process?: { emitWarning?: (m: string, o: object) => void } }).process
    ?.emitWarning
  emit?.(`@floodgate: ${message} See ${ERRORS_DOC}#${code.toLowerCase()}.`, {
    type: 'FloodgateWarning',
    code,
  })
}

/** Forget which warnings were raised, so tests can see each again. */
export function forgetRaisedWarnings(): void {
  raised.clear()
}

/** One limiter's misconfiguration warnings, with the ones its options turned off left out. */
export interface Warnings {
  /** Whether `name` is on and has not been raised yet in this process: checks before the work of detecting it. */
  pending(name: WarningName): boolean
  warn(name: WarningName, message: string): void
}

/**
 * Compile the `warnings` option.
 *
 * @example const warnings = compileWarnings({ forwardedHeader: false })
 */
export function compileWarnings(option: boolean | Partial<Record<WarningName, boolean>>): Warnings {
  const on = (name: WarningName) => (typeof option === 'boolean' ? option : option[name] !== false)
  return {
    pending: (name) => on(name) && !raised.has(WARNINGS[name]),
    warn(name, message) {
      if (on(name)) warnOnce(WARNINGS[name], message)
    },
  }
}

/** Checks each request for the misconfigurations it reveals, until each has been raised (or turned off). */
export interface RequestWarnings {
  check(info: RequestInfo, needsRoute: boolean): void
}

/** Compile the per-request misconfiguration checks: a flag test per request once they are all raised. */
export function compileRequestWarnings(warnings: Warnings): RequestWarnings {
  const proxyPending = () => warnings.pending('forwardedHeader') || warnings.pending('permissiveTrustProxy')
  // Whether a check may still warn; looked at again only after a request that could have raised one.
  let proxyChecks = proxyPending()
  let endpointCheck = warnings.pending('unknownEndpoint')
  return {
    check(info, needsRoute) {
      if (proxyChecks) {
        const trust = info.proxyTrust
        if (trust === 'none' && info.headers['x-forwarded-for'] !== undefined) {
          if (warnings.pending('forwardedHeader')) {
            warnings.warn(
              'forwardedHeader',
              "A request arrived with X-Forwarded-For, but the framework trusts no proxy, so the client address is the proxy's and every client behind it shares one bucket. Trust your proxy's address or CIDR (Express: app.set('trust proxy', '10.0.0.0/8'); Fastify: Fastify({ trustProxy: '10.0.0.0/8' }); Koa: app.proxy = true and app.maxIpsCount = 1), or turn this warning off with warnings: { forwardedHeader: false } when no proxy is in front.",
            )
          }
          proxyChecks = proxyPending()
        } else if (trust === 'all') {
          if (warnings.pending('permissiveTrustProxy')) {
            warnings.warn(
              'permissiveTrustProxy',
              "The framework trusts every proxy, so any client picks its own address, and its own bucket, by sending X-Forwarded-For. Trust only your proxy's address or CIDR (Express: app.set('trust proxy', '10.0.0.0/8'); Fastify: trustProxy: '10.0.0.0/8'; Koa: app.maxIpsCount = 1).",
            )
          }
          proxyChecks = proxyPending()
        }
      }
      if (endpointCheck && needsRoute && info.route === undefined) {
        if (warnings.pending('unknownEndpoint')) {
          warnings.warn(
            'unknownEndpoint',
            `An 'endpoint' key is used where the route pattern cannot be known (${info.method} ${info.path}, before routing or on a router the limiter cannot see), so those requests share one bucket per method ('${info.method} *'). Mount the limiter on the route or router (Koa at app level, with a router the app does not hold as @koa/router middleware: pass it as the \`router\` option).`,
          )
        }
        endpointCheck = warnings.pending('unknownEndpoint')
      }
    },
  }
}

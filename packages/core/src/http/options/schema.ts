import * as z from 'zod'
import { isCost } from '../../cost.js'
import { failureOptionsShape } from '../../failure-policy.js'
import { metricsSinkSchema } from '../../metrics/schema.js'
import { algorithmSchema, duration, durationInput, fn, positiveInt, storeSchema } from '../../validate.js'
import { parseRange } from '../allow-list.js'
import { WARNINGS } from '../warnings.js'
import { RATE_LIMIT_DEFAULTS as D } from './defaults.js'
import { planOptionsShape } from './plan-schema.js'

const KEY_EXPECTED =
  "'ip', 'user', 'endpoint', 'global', a function of the request, or a non-empty array of these"
const keyPart = z.union([z.enum(['ip', 'user', 'endpoint', 'global']), fn(KEY_EXPECTED)], {
  error: KEY_EXPECTED,
})
const keySchema = z.union([keyPart, z.array(keyPart).min(1, { error: KEY_EXPECTED })], {
  error: KEY_EXPECTED,
})

const NAME_EXPECTED = "a name of letters, digits and '_ . : ~ / -', at most 64 characters"
const nameSchema = z.string({ error: NAME_EXPECTED }).regex(/^[\w.:~/-]{1,64}$/, { error: NAME_EXPECTED })

const COST_EXPECTED = 'a finite number >= 0 or a function of the request returning one'
const costSchema = z.union([z.number().refine(isCost, { error: COST_EXPECTED }), fn(COST_EXPECTED)], {
  error: COST_EXPECTED,
})

const MODES = ['draft-6', 'draft-7', 'draft-8', 'legacy'] as const
const HEADERS_EXPECTED = `one of ${MODES.map((m) => `'${m}'`).join(', ')}, an array of one draft and 'legacy', true or false`
const headersSchema = z.union(
  [
    z.boolean(),
    z.enum(MODES),
    z
      .array(z.enum(MODES))
      .refine((modes) => modes.filter((m) => m !== 'legacy').length <= 1, { error: HEADERS_EXPECTED }),
  ],
  { error: HEADERS_EXPECTED },
)

const IPV6_EXPECTED = 'a whole number of bits from 1 to 128, or false'
const RANGE_EXPECTED = "an IP address or CIDR range like '10.0.0.0/8' or '2001:db8::/32'"
const PREFIX_EXPECTED = 'a string without |, { or }'
const WARNINGS_EXPECTED = `true, false, or an object turning warnings off by name (${Object.keys(WARNINGS).join(', ')})`

const OVERRIDES_EXPECTED =
  "an object of identifier patterns and algorithms or false ({ alice: tokenBucket({...}), '*@acme.com': false })"
const overridesSchema = z.custom<Record<string, unknown>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
  { error: OVERRIDES_EXPECTED },
)
const BAN_EXPECTED =
  "{ after, within, for }: after a whole number of refusals >= 1, within and for durations like '1m'"
const banSchema = z.strictObject(
  {
    after: positiveInt('a whole number of refusals >= 1'),
    within: duration(),
    for: duration(),
  },
  { error: BAN_EXPECTED },
)
const SETTLE_EXPECTED =
  'a function (res, req) returning the actual cost (a finite number >= 0, or a promise of it)'

const policySchema = z.strictObject({
  name: nameSchema.optional(),
  key: keySchema.optional(),
  algorithm: algorithmSchema,
  cost: costSchema.optional(),
  overrides: overridesSchema.optional(),
  ban: banSchema.optional(),
  settle: fn(SETTLE_EXPECTED).optional(),
})

const SHORT_FORM = ['limit', 'window', 'algorithm', 'key', 'name', 'overrides', 'ban'] as const

/** The names usage plans give their two policies. */
export const PLAN_POLICY_NAMES = ['rate', 'quota'] as const

type Issues = { addIssue(issue: { code: 'custom'; path: (string | number)[]; message: string }): void }

/** The checks across plans, tiers and routes; `false` when one failed. */
function planChecks(o: Record<string, any>, ctx: Issues): boolean {
  const fail = (path: (string | number)[], message: string) => {
    ctx.addIssue({ code: 'custom', path, message })
    return false
  }
  const names = [
    ...(o.limits ?? [{ name: o.name, key: o.key }]).map(
      (p: { name?: string; key?: unknown }) => p.name ?? defaultName(p.key),
    ),
  ]
  const tierNames = (o.tiers ?? []).map((p: { name?: string; key?: unknown }) => p.name ?? defaultName(p.key))
  for (const [i, name] of tierNames.entries()) {
    if (names.includes(name) || tierNames.indexOf(name) !== i) {
      return fail(['tiers', i, 'name'], 'a name no other policy or tier has (give each tier a `name`)')
    }
  }
  if (o.routes && !o.tiers)
    return fail(['routes'], 'left out unless `tiers` is given (a route tier replaces the innermost tier)')
  if (!o.plans) {
    for (const option of ['apiKey', 'planOf', 'anonymousPlan'] as const) {
      if (o[option] !== undefined) return fail([option], 'left out unless `plans` is given')
    }
    return true
  }
  if (!o.apiKey)
    return fail(['apiKey'], 'a function of the request returning the API key, since `plans` is given')
  if (!o.planOf)
    return fail(['planOf'], 'a function (apiKey, req) returning the plan name, since `plans` is given')
  if (o.anonymousPlan !== undefined && !Object.hasOwn(o.plans, o.anonymousPlan)) {
    return fail(['anonymousPlan'], `one of the plans (${Object.keys(o.plans).join(', ')})`)
  }
  for (const [i, name] of [...names, ...tierNames].entries()) {
    if ((PLAN_POLICY_NAMES as readonly string[]).includes(name)) {
      const where =
        i < names.length ? (o.limits ? ['limits', i, 'name'] : ['name']) : ['tiers', i - names.length, 'name']
      return fail(
        where,
        `a name other than ${PLAN_POLICY_NAMES.map((n) => `'${n}'`).join(' and ')}, which plans use`,
      )
    }
  }
  return true
}

/** A policy's default name: its key when that is a string, else `'default'`. */
export function defaultName(key: unknown): string {
  return typeof key === 'string' ? key : key === undefined ? D.key : 'default'
}

/** The middleware options' schema: validated when the middleware is created, never on a request. */
export const rateLimitOptionsSchema = z
  .strictObject({
    limit: z
      .number({ error: 'a whole number >= 1' })
      .refine((n) => Number.isSafeInteger(n) && n >= 1, { error: 'a whole number >= 1' })
      .optional(),
    window: durationInput().optional(),
    algorithm: algorithmSchema.optional(),
    key: keySchema.optional(),
    name: nameSchema.optional(),
    overrides: overridesSchema.optional(),
    ban: banSchema.optional(),
    onBanned: fn('a function (req, ban) => void').optional(),
    limits: z
      .array(policySchema, { error: 'a non-empty array of policies { name, key, algorithm, cost }' })
      .min(1, { error: 'a non-empty array of policies { name, key, algorithm, cost }' })
      .optional(),
    tiers: z
      .array(policySchema, {
        error: 'a non-empty array of policies { name, key, algorithm, cost }, outer to inner',
      })
      .min(1, { error: 'a non-empty array of policies { name, key, algorithm, cost }, outer to inner' })
      .optional(),
    ...planOptionsShape,
    store: storeSchema.optional(),
    prefix: z
      .string({ error: PREFIX_EXPECTED })
      .regex(/^[^|{}]*$/, { error: PREFIX_EXPECTED })
      .default(D.prefix),
    clock: fn('a function returning ms').optional(),
    user: fn('a function of the request returning the user id').optional(),
    headers: headersSchema.default(D.headers),
    cost: costSchema.default(D.cost),
    settle: fn(SETTLE_EXPECTED).optional(),
    skip: fn('a function of the request returning a boolean').optional(),
    allowList: z
      .array(
        z
          .string({ error: RANGE_EXPECTED })
          .refine((s) => parseRange(s) !== undefined, { error: RANGE_EXPECTED }),
        { error: `an array of ${RANGE_EXPECTED}s` },
      )
      .default(() => [...D.allowList]),
    denyList: z
      .array(
        z
          .string({ error: RANGE_EXPECTED })
          .refine((s) => parseRange(s) !== undefined, { error: RANGE_EXPECTED }),
        { error: `an array of ${RANGE_EXPECTED}s` },
      )
      .default(() => [...D.denyList]),
    deny: fn('a function of the request returning a boolean').optional(),
    ipv6Subnet: z
      .union(
        [
          z.literal(false),
          z.number().refine((n) => Number.isInteger(n) && n >= 1 && n <= 128, { error: IPV6_EXPECTED }),
        ],
        { error: IPV6_EXPECTED },
      )
      .default(D.ipv6Subnet),
    dryRun: z.boolean({ error: 'true or false' }).default(D.dryRun),
    onLimited: fn('a function (req, outcome) => void').optional(),
    onError: fn('a function (error, req, info) => void').optional(),
    ...failureOptionsShape,
    skipFailedRequests: z.boolean({ error: 'true or false' }).default(D.skipFailedRequests),
    skipSuccessfulRequests: z.boolean({ error: 'true or false' }).default(D.skipSuccessfulRequests),
    message: z
      .union([z.string(), fn('')], { error: 'a string or a function (req, info, decision) => string' })
      .optional(),
    statusCode: z
      .number({ error: 'an HTTP status from 400 to 599' })
      .refine((n) => Number.isInteger(n) && n >= 400 && n <= 599, { error: 'an HTTP status from 400 to 599' })
      .default(D.statusCode),
    format: z.enum(['json', 'problem+json'], { error: "'json' or 'problem+json'" }).default(D.format),
    handler: fn('a function (req, outcome, info) => { status, body, contentType, headers }').optional(),
    sleep: fn('a function (ms) => Promise<void>').optional(),
    warnings: z
      .union(
        [
          z.boolean(),
          z.strictObject(
            Object.fromEntries(Object.keys(WARNINGS).map((name) => [name, z.boolean().optional()])) as Record<
              keyof typeof WARNINGS,
              z.ZodOptional<z.ZodBoolean>
            >,
          ),
        ],
        { error: WARNINGS_EXPECTED },
      )
      .default(D.warnings),
    metrics: metricsSinkSchema.optional(),
  })
  .superRefine((o, ctx) => {
    if (o.limits) {
      for (const option of SHORT_FORM) {
        if (o[option] !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: [option],
            message: 'left out when `limits` is given (set it on a policy in `limits`)',
          })
          return
        }
      }
      const seen = new Set<string>()
      o.limits.forEach((policy, i) => {
        const name = policy.name ?? defaultName(policy.key)
        if (seen.has(name)) {
          ctx.addIssue({
            code: 'custom',
            path: ['limits', i, 'name'],
            message: 'a name no other policy has (policy names default to their key: give each a `name`)',
          })
        }
        seen.add(name)
      })
    } else if (o.algorithm && (o.limit !== undefined || o.window !== undefined)) {
      ctx.addIssue({
        code: 'custom',
        path: [o.limit !== undefined ? 'limit' : 'window'],
        message: 'left out when `algorithm` is given (the algorithm carries its own quota)',
      })
      return
    }
    const tierWithOverrides = (o.tiers ?? []).findIndex((t) => t.overrides !== undefined)
    if (tierWithOverrides !== -1) {
      ctx.addIssue({
        code: 'custom',
        path: ['tiers', tierWithOverrides, 'overrides'],
        message: 'left out on tiers (a tier only tightens; give `overrides` to a policy in `limits`)',
      })
      return
    }
    if (
      o.ban &&
      !o.limits &&
      (o.tiers || o.plans) &&
      o.limit === undefined &&
      o.window === undefined &&
      !o.algorithm
    ) {
      ctx.addIssue({
        code: 'custom',
        path: ['ban'],
        message: 'left out when there is no short-form policy (set `ban` on a policy in `limits` or `tiers`)',
      })
      return
    }
    if (!planChecks(o, ctx)) return
    const keys = [
      ...(o.limits ? o.limits.map((p) => p.key ?? D.key) : [o.key ?? D.key]),
      ...(o.tiers ?? []).map((p) => p.key ?? D.key),
    ]
    if (!o.user && keys.some((k) => k === 'user' || (Array.isArray(k) && k.includes('user')))) {
      ctx.addIssue({
        code: 'custom',
        path: ['user'],
        message: "a function of the request returning the user id, since a policy's key is 'user'",
      })
    }
  })

/** The options after validation, with every literal default applied. */
export type ParsedRateLimitOptions = z.output<typeof rateLimitOptionsSchema>

import { nearLimitSchema } from '@floodgate/core/internal'

/** What every binding takes. */
export interface MetricsBindingOptions {
  /**
   * The share of a policy's limit below which an allowed decision's `remaining` counts as near the limit
   * (`floodgate_near_limit_total`): 0.2 counts the decisions that left less than a fifth of the limit.
   * @default 0.2
   * @example 0.1
   */
  nearLimit?: number
}

/** The schema parts every binding's options share. */
export const bindingShape = { nearLimit: nearLimitSchema.optional() }

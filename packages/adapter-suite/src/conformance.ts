import type { StoreFactory } from '@floodgate/test-harness'
import { describe } from 'vitest'
import { suiteContext } from './harness.js'
import { bans } from './scenarios/bans.js'
import { clientAddresses } from './scenarios/client-addresses.js'
import { concurrencyLimits } from './scenarios/concurrency.js'
import { denials } from './scenarios/denials.js'
import { headers } from './scenarios/headers.js'
import { layeredLimits } from './scenarios/layered-limits.js'
import { overrides } from './scenarios/overrides.js'
import { readingLimits } from './scenarios/reading-limits.js'
import { refunds } from './scenarios/refunds.js'
import { refusals } from './scenarios/refusals.js'
import { requestOptions } from './scenarios/request-options.js'
import { routes } from './scenarios/routes.js'
import { settledCosts } from './scenarios/settled-costs.js'
import { shaping } from './scenarios/shaping.js'
import { slowDown } from './scenarios/slow-down.js'
import { storeDown } from './scenarios/store-down.js'
import type { AdapterDriver } from './types.js'

/**
 * The adapter conformance suite: the same scenarios, through real HTTP or `inject`, for every adapter and
 * store. Time is a virtual clock; shaping delays are recorded by an injected `sleep`, never waited for.
 *
 * @example describeAdapterConformance(expressDriver, { create: () => new MemoryStore() })
 */
export function describeAdapterConformance(
  driver: AdapterDriver,
  factory: StoreFactory,
  storeName = 'memory',
): void {
  describe(`adapter conformance: ${driver.name} on ${storeName}`, () => {
    const context = suiteContext(driver, factory)
    for (const scenarios of [
      headers,
      refusals,
      layeredLimits,
      routes,
      clientAddresses,
      denials,
      overrides,
      bans,
      requestOptions,
      refunds,
      shaping,
      storeDown,
      readingLimits,
      slowDown,
      settledCosts,
      concurrencyLimits,
    ]) {
      scenarios(context)
    }
  })
}

import type { BrowserContext } from 'playwright-core'

export const CHROMIUM: string
/** Start the playground's dev server on a free port of 127.0.0.1. */
export function startPlayground(options?: {
  configFile?: string
}): Promise<{ url: string; close(): Promise<void> }>
/** Launch Debian's chromium headless with a fresh profile (throws when it is missing). */
export function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }>

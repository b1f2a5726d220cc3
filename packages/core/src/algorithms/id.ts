import type { AlgorithmKind } from '../types.js'

const KIND_CODES: Record<AlgorithmKind, string> = {
  'fixed-window': 'fw',
  'sliding-window-log': 'swl',
  'sliding-window-counter': 'swc',
  'token-bucket': 'tb',
  'leaky-bucket': 'lb',
  gcra: 'gcra',
  'calendar-quota': 'cq',
  concurrency: 'cc',
}

/**
 * An algorithm's identity: its kind and parameters (`swc:100,60000`). Two algorithms with the same id decide
 * alike, so stores keep one state per key and id, whichever object asks.
 */
export function algorithmId(kind: AlgorithmKind, params: Readonly<Record<string, number>>): string {
  return `${KIND_CODES[kind]}:${Object.values(params).join(',')}`
}

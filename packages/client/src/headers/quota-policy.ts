import { deltaMs } from './numbers.js'
import { nonNegative, parseMembers } from './structured-fields.js'

/**
 * The window of a draft-6 / draft-7 `RateLimit-Policy` (`100;w=60`, or several: `10;w=1, 100;w=60`):
 * the item whose quota is `limit`, else the first. Items named by a string (draft-8) are not of this form.
 */
export function quotaPolicyWindowMs(
  field: string | undefined,
  limit: number | undefined,
): number | undefined {
  if (field === undefined) return undefined
  const items = parseMembers(field).filter((m) => m.key === undefined && typeof m.value === 'number')
  const item = items.find((m) => m.value === limit) ?? items[0]
  const w = nonNegative(item?.params.get('w'))
  return w === undefined ? undefined : deltaMs(w)
}

/**
 * V8 makes a string of 13 or more characters cut from another (`header.slice(7, 40)`, `split(' ')[1]`) a
 * view that keeps the whole original alive: a key kept for its window would hold a 16 KB header per client.
 * A key kept (by the MemoryStore's table, by the HTTP handler's caches) is therefore copied to a string of its own, once, when the key arrives; shorter
 * strings are always copies already.
 *
 * The copy is a flat string, not a view of one (a slice of 13 or more characters would be a view again):
 * every later lookup compares the caller's key with the kept one, and V8 compares a view character by
 * character on its slow path (a few hundred CPU instructions per decision for a 20-character key). A JSON
 * round trip gives back the same UTF-16 code units, lone surrogates included, as a new flat string.
 */
export function ownCopy(key: string): string {
  return key.length < 13 ? key : (JSON.parse(JSON.stringify(key)) as string)
}

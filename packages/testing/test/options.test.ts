import { MemoryStore, RateLimitConfigError } from '@floodgate/core'
import { describe, expect, it } from 'vitest'
import { testStore } from '../src/index.js'

// testStore registers nothing when its options are wrong: it throws at the call, naming the option.
describe('testStore options', () => {
  const create = () => new MemoryStore()
  it.each([
    [{ create }, /`testStore.name` to be a non-empty string, got undefined/],
    [{ name: 'x' }, /`testStore.create` to be a function that returns the store/],
    [
      { name: 'x', create, algorithms: ['token'] },
      /`testStore.algorithms` to be a non-empty array of 'fixed-window'/,
    ],
    [{ name: 'x', create, algorithms: [] }, /`testStore.algorithms`/],
    [{ name: 'x', create, time: 'server' }, /`testStore.time` to be 'given' or 'own', got 'server'/],
    [{ name: 'x', create, sequences: 0 }, /`testStore.sequences` to be a whole number >= 1, got 0/],
    [{ name: 'x', create, sequence: 4 }, /`testStore.sequence` to be one of the known options/],
  ])('%o is refused', (options, message) => {
    expect(() => testStore(options as never)).toThrow(RateLimitConfigError)
    expect(() => testStore(options as never)).toThrow(message)
  })
})

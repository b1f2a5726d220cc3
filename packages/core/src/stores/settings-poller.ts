import type { SettingsWatcher, StoreSettings } from '../types.js'

/** The timers a poller schedules its reads with; tests pass their own to drive reads by hand. */
export interface PollTimers {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** Node's timers, unref'd: a poll never keeps the process alive. */
export const unrefPollTimers: PollTimers = {
  setTimeout(callback, ms) {
    const timer = setTimeout(callback, ms)
    ;(timer as { unref?: () => void }).unref?.()
    return timer
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
}

interface Watched {
  version: number | undefined
  readonly watchers: Set<SettingsWatcher>
}

/**
 * Watches for a remote store (RedisStore, PostgresStore): the settings documents watched are read once when
 * first watched, then every `intervalMs`, one read per document per interval (the read returns `undefined`
 * when the version is still the one known, so an unchanged document costs a version check). The timer starts
 * with the first watch and stops with the last, or on `close()`; it never overlaps a read in flight.
 */
export class SettingsPoller {
  private readonly watched = new Map<string, Watched>()
  private timer: unknown
  private reading = false
  private closed = false

  constructor(
    private readonly read: (
      name: string,
      knownVersion: number | undefined,
    ) => Promise<StoreSettings | undefined>,
    private readonly intervalMs: number,
    private readonly timers: PollTimers = unrefPollTimers,
  ) {}

  watch(name: string, watcher: SettingsWatcher): () => void {
    if (this.closed) {
      // A closed store reads once (a limiter waits for its first read) and watches no more.
      this.read(name, undefined).then((settings) => settings && watcher.change(settings), watcher.error)
      return () => {}
    }
    let entry = this.watched.get(name)
    if (entry === undefined) {
      entry = { version: undefined, watchers: new Set() }
      this.watched.set(name, entry)
    }
    entry.watchers.add(watcher)
    // The document as it stands, for this watcher alone: read now, whatever the others know.
    this.read(name, undefined).then(
      (settings) => {
        if (settings === undefined || !entry.watchers.has(watcher)) return
        if (entry.version === undefined || settings.version >= entry.version) entry.version = settings.version
        watcher.change(settings)
      },
      (error) => watcher.error(error),
    )
    this.schedule()
    return () => {
      entry.watchers.delete(watcher)
      if (entry.watchers.size === 0) this.watched.delete(name)
      if (this.watched.size === 0) this.stop()
    }
  }

  /** A document this store wrote: its watchers in this process are told at once, with no read. */
  written(name: string, settings: StoreSettings): void {
    const entry = this.watched.get(name)
    if (entry === undefined || (entry.version !== undefined && settings.version <= entry.version)) return
    entry.version = settings.version
    for (const watcher of entry.watchers) watcher.change(settings)
  }

  /** Stop every watch (the store closed). */
  close(): void {
    this.closed = true
    this.watched.clear()
    this.stop()
  }

  private stop(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer)
    this.timer = undefined
  }

  private schedule(): void {
    if (this.timer !== undefined || this.reading || this.closed || this.watched.size === 0) return
    this.timer = this.timers.setTimeout(this.tick, this.intervalMs)
  }

  private readonly tick = (): void => {
    this.timer = undefined
    this.reading = true
    const reads = [...this.watched].map(([name, entry]) =>
      this.read(name, entry.version).then(
        (settings) => {
          if (settings === undefined || this.closed) return
          if (entry.version !== undefined && settings.version <= entry.version) return
          entry.version = settings.version
          for (const watcher of entry.watchers) watcher.change(settings)
        },
        (error) => {
          for (const watcher of entry.watchers) watcher.error(error)
        },
      ),
    )
    Promise.all(reads).then(() => {
      this.reading = false
      this.schedule()
    })
  }
}

/** A bounded map whose entries each lapse at their own time; when it is full, the oldest entry makes room. */
export interface ExpiringCache<V> {
  /** The entry under `key` while it lasts; a lapsed one is dropped. */
  get: (key: string, now?: number) => { value: V } | undefined
  /** Keeps `value` until `until` (ms since the epoch); a value already lapsed is not kept. */
  set: (key: string, value: V, until: number, now?: number) => void
}

export function createExpiringCache<V> (maxEntries: number): ExpiringCache<V> {
  const entries = new Map<string, { value: V, until: number }>()
  return {
    get (key, now = Date.now()) {
      const entry = entries.get(key)
      if (entry === undefined || entry.until > now) return entry
      entries.delete(key)
      return undefined
    },
    set (key, value, until, now = Date.now()) {
      if (until <= now) return
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!)
      entries.set(key, { value, until })
    }
  }
}

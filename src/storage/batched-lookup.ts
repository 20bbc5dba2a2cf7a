import DataLoader from 'dataloader'

/**
 * A read by id whose lookups are batched: the lookups made in one turn of the event loop, by every
 * request being served, become one query for all their ids. A database round trip costs this service
 * more CPU than the rest of a read together, so under load this is what lets reads scale.
 *
 * Nothing is cached between batches, and a batch is queried only after every lookup in it was made,
 * so a read always sees the writes acknowledged before its request arrived.
 */
export function batchedLookup<T extends { id: string }> (
  fetchMany: (ids: readonly string[]) => Promise<T[]>,
  maxBatchSize = 500
): (id: string) => Promise<T | undefined> {
  const loader = new DataLoader<string, T | undefined>(async ids => {
    const found = new Map((await fetchMany([...new Set(ids)])).map(row => [row.id, row]))
    return ids.map(id => found.get(id))
  }, {
    cache: false,
    maxBatchSize,
    // After the I/O of this turn: requests read from several connections share one query.
    batchScheduleFn: run => setImmediate(run)
  })
  // The loader's own promise, not one more around it: a read makes a promise less per wrapper.
  return id => loader.load(id)
}

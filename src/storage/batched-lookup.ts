import { batchedPerTurn } from './turn-batches.js'

/**
 * A read by id whose lookups are batched: the lookups made in one turn of the event loop, by every
 * request being served, become one query for all their ids (see batchedPerTurn). A database round
 * trip costs this service more CPU than the rest of a read together, so under load this is what lets
 * reads scale.
 */
export function batchedLookup<T extends { id: string }> (
  fetchMany: (ids: readonly string[]) => Promise<T[]>,
  maxBatchSize = 500
): (id: string) => Promise<T | undefined> {
  return batchedPerTurn<string, T | undefined>(async ids => {
    const found = new Map((await fetchMany([...new Set(ids)])).map(row => [row.id, row]))
    return ids.map(id => found.get(id))
  }, maxBatchSize)
}

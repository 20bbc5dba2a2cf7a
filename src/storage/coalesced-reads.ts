// Reads by id that arrive in the same turn of the event loop go to the database as one statement.
// DataLoader gathers the ids; the batch is sent once the turn's I/O callbacks have run, so requests
// read from different sockets in one turn share it. Only autocommit reads go through here, never a
// transaction's, and nothing is cached past the batch. The statement's trace span belongs to the
// first read of its batch.
import DataLoader from 'dataloader'

/** Past this many ids a turn's reads go as several statements, each of a bounded size. */
const MAX_IDS_PER_STATEMENT = 100

/** A read of one record by id, sent as `loadByIds` for every id asked for in the same turn. */
export function coalescedById<T extends { id: string }> (loadByIds: (ids: readonly string[]) => Promise<T[]>): (id: string) => Promise<T | undefined> {
  const loader = new DataLoader<string, T | undefined>(async ids => {
    const found = new Map((await loadByIds(ids)).map(record => [record.id, record]))
    return ids.map(id => found.get(id))
  }, { cache: false, maxBatchSize: MAX_IDS_PER_STATEMENT, batchScheduleFn: send => setImmediate(send) })
  return async id => await loader.load(id)
}

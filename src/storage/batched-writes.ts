import DataLoader from 'dataloader'

/**
 * Writes of one kind made in the same turn of the event loop, by every request being served, go to
 * the database together: one round trip and one commit for all. `writeMany` answers in input order,
 * with an Error (or a promise) for each write it could not answer, and never throws once a write took
 * effect (see eachAloneOnFailure). Each write is acknowledged only once its batch committed.
 */
export function batchedWrites<In, Out> (writeMany: (inputs: readonly In[]) => Promise<Array<Out | Error | Promise<Out>>>, maxBatchSize = 100): (input: In) => Promise<Out> {
  // DataLoader settles a load with what the batch answers for it; a promise is followed.
  const loader = new DataLoader<In, Out>(writeMany as (inputs: readonly In[]) => Promise<Array<Out | Error>>, {
    cache: false,
    maxBatchSize,
    // After the I/O of this turn: requests read from several connections share one statement.
    batchScheduleFn: run => setImmediate(run)
  })
  return input => loader.load(input)
}

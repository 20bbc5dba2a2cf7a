import DataLoader from 'dataloader'
import { eachAloneOnFailure } from './batch-failure.js'

/**
 * Writes of one kind made in the same turn of the event loop, by every request being served, go to
 * the database as one statement: one round trip and one commit for all. `writeMany` answers in input
 * order (see eachAloneOnFailure). Each write is acknowledged only once its batch committed.
 */
export function batchedWrites<In, Out> (writeMany: (inputs: readonly In[]) => Promise<Array<Out | Error>>, maxBatchSize = 100): (input: In) => Promise<Out> {
  const loader = new DataLoader<In, Out>(async inputs => await eachAloneOnFailure(inputs, writeMany), {
    cache: false,
    maxBatchSize,
    // After the I/O of this turn: requests read from several connections share one statement.
    batchScheduleFn: run => setImmediate(run)
  })
  return input => loader.load(input)
}

import DataLoader from 'dataloader'

/**
 * Requests of one kind made in the same turn of the event loop, by every request being served, go to
 * the database together: one round trip (and for writes one commit) for all. `run` answers in input
 * order, with an Error (or a promise) for each input it could not answer, and never throws once a
 * write took effect (see eachAloneOnFailure). Nothing is kept between batches, and a batch leaves only
 * after every input in it was given, so each sees the writes acknowledged before its request arrived.
 */
export function batchedPerTurn<In, Out> (run: (inputs: readonly In[]) => Promise<Array<Out | Error | Promise<Out>>>, maxBatchSize: number): (input: In) => Promise<Out> {
  // DataLoader settles a load with what the batch answers for it; a promise is followed.
  const loader = new DataLoader<In, Out>(run as (inputs: readonly In[]) => Promise<Array<Out | Error>>, {
    cache: false,
    maxBatchSize,
    // After the I/O of this turn: requests read from several connections share one statement.
    batchScheduleFn: next => setImmediate(next)
  })
  // The loader's own promise, not one more around it: a request makes a promise less per wrapper.
  return input => loader.load(input)
}

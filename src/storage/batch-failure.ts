import pg from 'pg'

/**
 * Runs a batch of inputs as one statement; when the database refuses it (an error it answered, so
 * the statement took no effect), each input is sent again alone, so the values one client sent (a constraint they break, a value the database cannot hold)
 * fail that client's request and no other request of its batch. `run` answers in input order, with an
 * Error for an input it could not answer once the statement succeeded (never by throwing then: the
 * batch's effects are committed, and a throw would send each input again).
 */
export async function eachAloneOnFailure<In, Out> (inputs: readonly In[], run: (inputs: readonly In[]) => Promise<Array<Out | Error>>): Promise<Array<Out | Error>> {
  try {
    return await run(inputs)
  } catch (error) {
    // A lost connection may have lost the answer to a statement that took effect: that is not sent again.
    if (inputs.length === 1 || !(error instanceof pg.DatabaseError)) return inputs.map(() => error as Error)
    return await Promise.all(inputs.map(async input => await run([input]).then(([output]) => output!, (failure: Error) => failure)))
  }
}

import pg from 'pg'

/**
 * SQLSTATE classes of a refusal caused by what one request sent, or by a collision with another
 * transaction: data exceptions (22), integrity constraints (23), and deadlock or serialization (40).
 * Anything else (a timeout, a connection lost or refused, a database shutting down) would fail each
 * request sent alone as well: sending them all again would only add load where there is too much.
 */
const REFUSED_FOR_ONE = new Set(['22', '23', '40'])

/**
 * Runs a batch of inputs as one statement; when the database refuses it for what one input holds (an
 * error it answered, so the statement took no effect), each input is sent again alone, so one client's
 * values fail that client's request and no other request of its batch. `run` answers in input order,
 * with an Error for an input it could not answer once the statement succeeded (never by throwing then:
 * the batch's effects are committed, and a throw would send each input again).
 */
export async function eachAloneOnFailure<In, Out> (inputs: readonly In[], run: (inputs: readonly In[]) => Promise<Array<Out | Error>>): Promise<Array<Out | Error>> {
  try {
    return await run(inputs)
  } catch (error) {
    const refusedForOne = error instanceof pg.DatabaseError && REFUSED_FOR_ONE.has(error.code?.slice(0, 2) ?? '')
    if (inputs.length === 1 || !refusedForOne) return inputs.map(() => error as Error)
    return await Promise.all(inputs.map(async input => await run([input]).then(([output]) => output!, (failure: Error) => failure)))
  }
}

// Every parameterised statement the service sends to PostgreSQL goes as a named prepared statement:
// each connection parses and plans a statement text once, then only binds and executes it.
import pg from 'pg'
import { isPreparedStatementRefused } from './errors.ts'

/** Past this many distinct texts, new ones go unnamed: the names a connection keeps stay bounded. */
const MAX_NAMED_TEXTS = 500

const names = new Map<string, string>()

/** One name per statement text in this process: pg prepares a name once per connection and reuses it after. */
export function statementName (text: string): string | undefined {
  let name = names.get(text)
  if (name === undefined && names.size < MAX_NAMED_TEXTS) {
    name = `s${names.size + 1}`
    names.set(text, name)
  }
  return name
}

/**
 * A `pg` client class that names what Kysely sends as (text, values). Statements without values
 * (`begin`, `commit`, `select 1`) stay unnamed: there is nothing to plan once for them. From the
 * first statement a pooler refuses for its name, the pool's clients send unnamed statements only,
 * and `onRefused` is told once.
 */
export function preparingClient (onRefused: () => void): typeof pg.Client {
  let naming = true
  return class PreparingClient extends pg.Client {
    override query (...args: unknown[]): any {
      const [text, values] = args
      if (naming && typeof text === 'string' && Array.isArray(values) && values.length > 0 && args.length === 2) {
        const name = statementName(text)
        if (name !== undefined) {
          return super.query({ name, text, values }).catch((error: unknown) => {
            if (naming && isPreparedStatementRefused(error)) {
              naming = false
              onRefused()
            }
            throw error
          })
        }
      }
      return (super.query as (...rest: unknown[]) => unknown)(...args)
    }
  }
}

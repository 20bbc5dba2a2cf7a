// A list statement's text depends on a few choices (which filters, which sort, which kind of page);
// its values change with every request. Kysely builds and compiles each shape once, with named
// placeholders in place of the values; a request then only binds its values where the placeholders
// landed, and sends the same text as before (the same prepared statement) without the query builder,
// whose building and compiling cost a list more CPU than the rest of its work in the service.
import type { Compilable, CompiledQuery } from 'kysely'

/** Past this many shapes, new ones are not kept: memory stays bounded whatever clients ask. */
const MAX_SHAPES = 500

/** A string no query builds on its own: it marks where a named value goes. */
const PLACEHOLDER = '\u0000value:'

/** Names a value while a shape compiles; the statement binds the request's value of that name. */
export type Param = <T>(name: string) => T

interface Shape<Row> {
  compiled: CompiledQuery<Row>
  /** Per parameter, the name of the value it binds, or undefined for a constant the query itself holds. */
  names: Array<string | undefined>
}

function compileShape<Row> (build: (param: Param) => Compilable<Row>): Shape<Row> {
  // The one place a placeholder stands in for a value: it never reaches the database.
  const param = (<T>(name: string): T => `${PLACEHOLDER}${name}` as T) as Param
  const compiled = build(param).compile()
  const names = compiled.parameters.map(parameter =>
    typeof parameter === 'string' && parameter.startsWith(PLACEHOLDER) ? parameter.slice(PLACEHOLDER.length) : undefined)
  return { compiled, names }
}

/**
 * Compiles a statement once per shape key (for the first MAX_SHAPES keys; past them, per request) and
 * binds each request's values into it. The key must name every choice `build` makes other than
 * values; `values` must hold every name `build` gives a parameter.
 */
export function compiledShapes<Row> () {
  const kept = new Map<string, Shape<Row>>()
  return (key: string, build: (param: Param) => Compilable<Row>, values: Readonly<Record<string, unknown>>): CompiledQuery<Row> => {
    let shape = kept.get(key)
    if (shape === undefined) {
      shape = compileShape(build)
      if (kept.size < MAX_SHAPES) kept.set(key, shape)
    }
    const { compiled, names } = shape
    const parameters = names.map((name, i) => {
      if (name === undefined) return compiled.parameters[i]
      if (!(name in values)) throw new Error(`no value for ${name} in the statement of shape ${key}`)
      return values[name]
    })
    return { ...compiled, parameters }
  }
}

/** A statement of one fixed shape: compiled on first use, then only bound to each request's values. */
export function compiledStatement<Row> (build: (param: Param) => Compilable<Row>): (values: Readonly<Record<string, unknown>>) => CompiledQuery<Row> {
  const shapes = compiledShapes<Row>()
  return values => shapes('', build, values)
}

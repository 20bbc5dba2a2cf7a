// A page costs this service more CPU in its round trip to the database than in the rest of its work
// together, as a read does (batched-lookup.ts). So pages of one shape asked for in the same turn of
// the event loop, by every request being served, go to the database as one statement: each page's
// values become one row of arrays unnested, and the page's own statement runs once per row, laterally.
//
//   select "p"."i" as "batch_item", "x".* from unnest($1::text[], $2::uuid[], $3::int8[]) with ordinality as "p"("status", "vagaId", "fetch", "i")
//   cross join lateral (select ... where "c"."status" = "p"."status" and "c"."vaga_id" = "p"."vagaId" order by ... limit "p"."fetch") as "x"
//
// Like every batch (turn-batches.ts), it sees the writes acknowledged before its requests arrived.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely'
import { compileShape, compiledShapes, perShape, type Shape, type Param } from './compiled-shapes.js'
import { eachAloneOnFailure } from './batch-failure.js'
import { batchedPerTurn } from './turn-batches.js'

interface PageCall {
  key: string
  build: (param: Param) => Compilable<unknown>
  values: Readonly<Record<string, unknown>>
}

interface BatchedShape {
  text: string
  /** The values each page binds, in the order of the arrays: every name a param of the shape gave. */
  columns: string[]
  /** Values the query itself holds, bound after the arrays. */
  constants: unknown[]
}

/** The page's statement run once per row of the unnested values: each `$n` of a param becomes that row's column. */
export function batchedShape (shape: Shape<unknown>): BatchedShape {
  const { compiled, names, types } = shape
  const columns = [...new Set(names.filter((name): name is string => name !== undefined))]
  if (columns.length === 0) throw new Error('a batched statement needs at least one value per page')
  const constants: unknown[] = []
  const inner = compiled.sql.replace(/\$(\d+)/g, (_, position: string) => {
    const index = Number(position) - 1
    const name = names[index]
    if (name !== undefined) return `"p"."${name}"`
    constants.push(compiled.parameters[index])
    return `$${columns.length + constants.length}`
  })
  const arrays = columns.map((name, i) => {
    const type = types.get(name)
    if (type === undefined) throw new Error(`the param ${name} has no SQL type: its values cannot travel as an array`)
    return `$${i + 1}::${type}[]`
  })
  const text = `select "p"."i" as "batch_item", "x".* from unnest(${arrays.join(', ')}) with ordinality as "p"(${columns.map(name => `"${name}"`).join(', ')}, "i") ` +
    `cross join lateral (${inner}) as "x"`
  return { text, columns, constants }
}

/**
 * Pages by shape, batched: `key` must name every choice `build` makes other than values, and every param
 * of `build` must give its SQL type. Each shape has its own batches, so a slow shape holds back no
 * other; identical pages in one batch are fetched once. A page asked `alone` is sent by itself, as its
 * own statement with its values bound (see pageGoesAlone).
 */
export function batchedPages (db: Kysely<any>, maxBatchSize = 200) {
  const loaders = perShape<(call: PageCall) => Promise<unknown[]>>()
  const single = compiledShapes<unknown>()

  /** One statement for pages of one shape; each distinct page's rows, in the order the page's statement gives. */
  const fetchPages = async (shape: BatchedShape, pages: readonly unknown[][]): Promise<unknown[][]> => {
    const arrays = shape.columns.map((_, column) => pages.map(values => values[column]))
    const { rows } = await db.executeQuery(CompiledQuery.raw(shape.text, [...arrays, ...shape.constants]))
    const fetched: unknown[][] = pages.map(() => [])
    // A nested loop over the unnested rows keeps each page's rows in its own order.
    for (const row of rows as Array<{ batch_item: number }>) fetched[row.batch_item - 1]!.push(row)
    return fetched
  }

  const fetchBatch = async (shape: BatchedShape, calls: readonly PageCall[]): Promise<Array<unknown[] | Error>> => {
    const pages: unknown[][] = []
    let pageOfCall: number[]
    try {
      const distinct = new Map<string, number>()
      pageOfCall = calls.map(call => {
        const values = shape.columns.map(name => {
          if (!(name in call.values)) throw new Error(`no value for ${name} in the statement of shape ${call.key}`)
          return call.values[name]
        })
        const identity = JSON.stringify(values)
        let index = distinct.get(identity)
        if (index === undefined) {
          index = pages.push(values) - 1
          distinct.set(identity, index)
        }
        return index
      })
    } catch (error) {
      return calls.map(() => error as Error)
    }
    const fetched = await eachAloneOnFailure(pages, async pages => await fetchPages(shape, pages))
    return pageOfCall.map(index => fetched[index]!)
  }

  const loaderOf = (call: PageCall): (call: PageCall) => Promise<unknown[]> => loaders(call.key, () => {
    const shape = batchedShape(compileShape(call.build))
    return batchedPerTurn<PageCall, unknown[]>(async calls => await fetchBatch(shape, calls), maxBatchSize)
  })

  // No async wrapper: the loader's promise, or the lone statement's, is the page's.
  return <Row>(key: string, build: (param: Param) => Compilable<Row>, values: Readonly<Record<string, unknown>>, options: { alone?: boolean } = {}): Promise<Row[]> => {
    if (options.alone === true) return db.executeQuery(single(key, build, values) as CompiledQuery<Row>).then(result => result.rows)
    const call = { key, build, values }
    return loaderOf(call)(call) as Promise<Row[]>
  }
}

import t from 'tap'
import { batchedShape } from '../../src/storage/batched-pages.js'
import { compileShape } from '../../src/storage/compiled-shapes.js'
import { compileOnly } from '../support/compile-only.js'

interface DB { items: { id: string, kind: string, rank: number } }

const db = compileOnly<DB>()

t.test('a page statement runs laterally per row of its unnested values; its own constants are bound after the arrays', async t => {
  const shape = batchedShape(compileShape(param => db.selectFrom('items').select('id')
    .where('rank', '>', 5)
    .where('kind', '=', param<string>('kind', 'text'))
    .where('rank', '<', 9)
    .orderBy('id')
    .limit(param<number>('fetch', 'int8'))))
  t.same(shape.columns, ['kind', 'fetch'])
  t.same(shape.constants, [5, 9])
  t.equal(shape.text,
    'select "p"."i" as "batch_item", "x".* from unnest($1::text[], $2::int8[]) with ordinality as "p"("kind", "fetch", "i") ' +
    'cross join lateral (select "id" from "items" where "rank" > $3 and "kind" = "p"."kind" and "rank" < $4 order by "id" limit "p"."fetch") as "x"')
})

t.test('a value that names no SQL type cannot travel as an array', async t => {
  t.throws(() => batchedShape(compileShape(param => db.selectFrom('items').select('id').limit(param<number>('fetch')))), /fetch has no SQL type/)
  t.throws(() => batchedShape(compileShape(() => db.selectFrom('items').select('id').limit(3))), /at least one value/)
})

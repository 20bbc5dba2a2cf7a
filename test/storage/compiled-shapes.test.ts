import t from 'tap'
import { sql } from 'kysely'
import { compiledShapes, compiledStatement } from '../../src/storage/compiled-shapes.ts'
import { compileOnly } from '../support/compile-only.ts'

interface DB { items: { id: string, kind: string, rank: number } }

const db = compileOnly<DB>()

t.test('a shape compiles once; every request binds its own values where the placeholders landed', async t => {
  const statements = compiledShapes<{ id: string }>()
  let builds = 0
  const build = (kind: string | undefined) => (param: <T>(name: string) => T) => {
    builds++
    let query = db.selectFrom('items').select('id').where('rank', '>', 5)
    if (kind !== undefined) query = query.where('kind', '=', param<string>('kind'))
    return query.limit(param<number>('fetch'))
  }
  const first = statements('k', build('a'), { kind: 'a', fetch: 21 })
  const second = statements('k', build('b'), { kind: 'b', fetch: 11 })
  t.equal(builds, 1)
  t.equal(second.sql, first.sql)
  t.same(first.parameters, [5, 'a', 21], 'constants of the query stay, values are bound in order')
  t.same(second.parameters, [5, 'b', 11])
  const other = statements('', build(undefined), { fetch: 3 })
  t.same(other.parameters, [5, 3])
  t.not(other.sql, first.sql)
  t.throws(() => statements('missing', build('a'), { fetch: 3 }), /no value for kind/)
})

t.test('a fixed statement compiles on first use; a raw template binds the same value at each of its places', async t => {
  let builds = 0
  const move = compiledStatement<{ id: string }>(param => {
    builds++
    return { compile: () => sql<{ id: string }>`update items set kind = ${param('kind')} where id = ${param('id')} and kind <> ${param('kind')} returning id`.compile(db) }
  })
  t.equal(builds, 0, 'nothing is compiled before the first request')
  const first = move({ id: 'x', kind: 'a' })
  const second = move({ id: 'y', kind: 'b' })
  t.equal(builds, 1)
  t.equal(second.sql, first.sql)
  t.same(first.parameters, ['a', 'x', 'a'])
  t.same(second.parameters, ['b', 'y', 'b'])
})

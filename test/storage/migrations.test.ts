import t from 'tap'
import { Migrator, sql, type Kysely } from 'kysely'
import { migrations } from '../../src/storage/migrations/index.ts'
import { migrateToLatest } from '../../src/storage/migrate.ts'
import { createCandidatosRepository, DuplicateEmailError } from '../../src/storage/candidatos-repository.ts'
import { createWebhooksRepository } from '../../src/storage/webhooks-repository.ts'
import type { Schema } from '../../src/storage/schema.ts'
import { emptyDatabase, type Backend } from '../support/database.ts'

async function migrateTo (db: Kysely<Schema>, name: string): Promise<void> {
  const { error } = await new Migrator({ db, provider: { getMigrations: async () => migrations } }).migrateTo(name)
  if (error !== undefined) throw error
}

async function insertOld (db: Kysely<Schema>, emails: string[]): Promise<void> {
  await sql`insert into candidatos (nome, email, status) select 'Antiga', e, 'cadastrado' from unnest(${emails}::text[]) as e`.execute(db)
}

for (const backend of ['pglite', 'postgres'] as Backend[]) {
  t.test(`0002 on ${backend}: addresses stored before it get their key and stay unique in any form`, async t => {
    const db = await emptyDatabase(t, backend)
    if (db === undefined) return
    await migrateTo(db, '0001-recruitment')
    await insertOld(db, ['Ana@Example.com', 'jos\u00e9@exemplo.com.br', ...Array.from({ length: 1500 }, (_, i) => `antiga-${i}@example.com`)])
    t.same(await migrateToLatest(db), Object.keys(migrations).slice(1), 'every migration after the first runs')
    const keys = await sql<{ email_chave: string }>`select email_chave from candidatos where email in ('Ana@Example.com', 'antiga-1499@example.com') order by email_chave`.execute(db)
    t.same(keys.rows.map(row => row.email_chave), ['ana@example.com', 'antiga-1499@example.com'], 'every row has its key, past the first batch')
    const candidatos = createCandidatosRepository(db)
    await t.rejects(candidatos.create({ nome: 'Nova', email: 'JOSE\u0301@exemplo.com.br' }, 'tester'), DuplicateEmailError, 'an address stored before is compared in normal form')
  })

  t.test(`0002 on ${backend}: addresses that became one are named, and nothing changes`, async t => {
    const db = await emptyDatabase(t, backend)
    if (db === undefined) return
    await migrateTo(db, '0001-recruitment')
    await insertOld(db, ['jos\u00e9@exemplo.com.br', 'jose\u0301@exemplo.com.br'])
    await t.rejects(migrateToLatest(db), /share an e-mail address once compared in Unicode normal form: jos\u00e9@exemplo\.com\.br \(2\)/)
    const columns = await sql<{ column_name: string }>`select column_name from information_schema.columns where table_name = 'candidatos' and column_name = 'email_chave'`.execute(db)
    t.same(columns.rows, [], 'the migration rolled back')
  })
}

t.test('0006: subscriptions made before it belong to no one, seen by webhooks:admin alone, and may receive nothing', async t => {
  const db = await emptyDatabase(t, 'pglite')
  if (db === undefined) return
  await migrateTo(db, '0005-webhook-dispatch-time')
  const { rows } = await sql<{ id: string }>`insert into webhooks (url, segredo, desde_evento) values ('https://example.com/hook', 'whsec_AAAA', 0) returning id`.execute(db)
  const id = rows[0]!.id
  await migrateToLatest(db)
  const webhooks = createWebhooksRepository(db)
  t.equal(await webhooks.findById(id, { owner: 'client:anyone' }), undefined, 'no client owns it')
  t.match(await webhooks.findById(id, { every: true }), { id, criadoPor: null, escopos: [] }, 'the admin sees it; its creator\'s scopes are unknown')
  await t.rejects(sql`insert into webhooks (url, segredo, desde_evento, criado_por) values ('https://example.com/hook', 'whsec_AAAA', 0, 'x')`.execute(db), /escopos/, 'a new one must say what its creator may read')
})

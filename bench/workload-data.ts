// The data `npm run bench:workload` runs on: `npm run seed` into a fresh database, plus the action
// history the seeded states imply, plus the pools of candidatos the writes use, restored before
// every load run so each run starts from the same state.
import { spawnSync } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import pg from 'pg'
import { root } from './harness.ts'
import type { WorkloadData } from './workload-operations.ts'

export interface SeedSizes {
  vagas: number
  candidatos: number
  readSample: number
  /** `cadastrado` candidatos `candidatar` takes one of per request in one run; the seed's quarter is topped up to it. */
  cadastrados: number
}

/**
 * The history a seeded candidato would have, had it got there through the API: candidatar for
 * each one in a vaga, then aprovar or reprovar for those decided.
 */
const HISTORY = `
insert into candidato_acoes (candidato_id, acao, metodo, status_anterior, status_novo, vaga_anterior_id, vaga_id, ator, em)
select id, 'candidatar', 'POST', 'cadastrado', 'inscrito', null, vaga_id, 'seed', criado_em from candidatos where vaga_id is not null
union all
select id, case status when 'aprovado' then 'aprovar' else 'reprovar' end, 'POST', 'inscrito', status, vaga_id, vaga_id, 'seed', criado_em
from candidatos where status in ('aprovado', 'reprovado')
order by 9`

/** Candidatos in no vaga and no state but `cadastrado`, up to $1 of them: they appear in no list the workload asks. */
const TOP_UP_CADASTRADOS = `
insert into candidatos (nome, email, email_chave, status)
select 'Candidato extra ' || n, 'candidato-extra-' || n || '@example.com', 'candidato-extra-' || n || '@example.com', 'cadastrado'
from generate_series(1, $1::int - (select count(*) from candidatos where status = 'cadastrado')::int) as n`

export async function seedWorkload (url: string, sizes: SeedSizes): Promise<WorkloadData> {
  const seeded = spawnSync(process.execPath, ['scripts/start.js', 'src/cli/seed.js', String(sizes.vagas), String(sizes.candidatos)], {
    cwd: root, env: { ...process.env, DATABASE_URL: url }, stdio: ['ignore', 'ignore', 'inherit']
  })
  if (seeded.status !== 0) throw new Error('seeding failed')
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(HISTORY)
    await client.query(TOP_UP_CADASTRADOS, [sizes.cadastrados])
    await client.query('vacuum analyze')
    const ids = async (text: string, values: unknown[] = []) => (await client.query<{ id: string }>(text, values)).rows.map(row => row.id)
    const inscritos = await ids("select id from candidatos where status = 'inscrito' order by random()")
    return {
      vagas: await ids('select id from vagas'),
      candidatos: await ids('select id from candidatos order by random() limit $1', [sizes.readSample]),
      cadastrados: await ids("select id from candidatos where status = 'cadastrado' order by random()"),
      // Half of them: the other half stays in the lists whatever the writes do.
      inscritos: inscritos.slice(0, Math.ceil(inscritos.length / 2))
    }
  } finally {
    await client.end()
  }
}

/** Waits until no statement runs on the database but this check, e.g. the tail of a load run. */
export async function untilDatabaseIdle (url: string, timeoutMs = 60_000): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const deadline = Date.now() + timeoutMs
    for (;;) {
      const { rows } = await client.query<{ busy: number }>(
        "select count(*)::int as busy from pg_stat_activity where datname = current_database() and state <> 'idle' and pid <> pg_backend_pid()")
      if (rows[0]?.busy === 0) return
      if (Date.now() > deadline) throw new Error(`the database was still busy ${timeoutMs} ms after the load ended`)
      await sleep(100)
    }
  } finally {
    await client.end()
  }
}

/** Puts the write pools back as seeded and removes what the writes added, so runs compare alike. */
export async function restoreWorkload (url: string, data: WorkloadData): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query("delete from candidato_acoes where ator <> 'seed'")
    await client.query("update candidatos set status = 'cadastrado', vaga_id = null where id = any($1) and status <> 'cadastrado'", [data.cadastrados])
    await client.query("update candidatos set status = 'inscrito' where id = any($1) and status <> 'inscrito'", [data.inscritos])
    await client.query("delete from candidatos where email like 'carga-%'")
    await client.query('vacuum analyze candidatos, candidato_acoes')
  } finally {
    await client.end()
  }
}

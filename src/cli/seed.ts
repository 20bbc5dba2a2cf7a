// npm run seed -- [vagas] [candidatos]: fills the configured database with demonstration data
// (default 20 vagas, 2000 candidatos) and prints URLs worth reading, e.g. for a benchmark.
import { migrateToLatest } from '../storage/migrate.ts'
import { seed } from '../storage/seed.ts'
import { withDatabase } from './with-database.ts'

function count (value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n) || n < 0 || n > 1_000_000) throw new Error(`expected a count from 0 to 1000000, got ${value}`)
  return n
}

await withDatabase('seed', async ({ db, kind }) => {
  const [vagas, candidatos] = [count(process.argv[2], 20), count(process.argv[3], 2000)]
  await migrateToLatest(db)
  const result = await seed(db, { vagas, candidatos })
  const vaga = result.vagaIds[0]
  process.stdout.write(`${kind}: added ${vagas} vagas and ${candidatos} candidatos\n`)
  if (result.sampleCandidatoId !== '') process.stdout.write(`single read:   /api/v1/candidatos/${result.sampleCandidatoId}\n`)
  if (vaga !== undefined) process.stdout.write(`filtered list: /api/v1/candidatos?status=inscrito&vagaId=${vaga}&sort=-criadoEm&limit=20\n`)
})

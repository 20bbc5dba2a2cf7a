import { randomBytes } from 'node:crypto'
import type { Kysely } from 'kysely'
import { emailKey, type CandidatoStatus } from '../domain/candidato.ts'
import type { Schema } from './schema.ts'

export interface SeedCounts {
  vagas: number
  candidatos: number
}

export interface SeedResult {
  vagaIds: string[]
  /** A candidato that is `inscrito` in the first vaga: a representative single read. */
  sampleCandidatoId: string
}

const BATCH = 500
const STATUSES: CandidatoStatus[] = ['cadastrado', 'inscrito', 'aprovado', 'reprovado']

/**
 * Demonstration and benchmark data, in batches of bound parameters: `vagas` open vacancies and
 * `candidatos` spread over them and over every state (a quarter of them `cadastrado`, in no vaga).
 */
export async function seed (db: Kysely<Schema>, counts: SeedCounts): Promise<SeedResult> {
  const run = randomBytes(3).toString('hex')
  const vagaIds: string[] = []
  for (let start = 0; start < counts.vagas; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, counts.vagas - start) }, (_, i) => ({
      titulo: `Vaga ${start + i + 1} ${run}`,
      descricao: 'Dados de demonstração',
      status: 'aberta' as const
    }))
    const inserted = await db.insertInto('vagas').values(rows).returning('id').execute()
    vagaIds.push(...inserted.map(row => row.id))
  }
  let sampleCandidatoId = ''
  for (let start = 0; start < counts.candidatos; start += BATCH) {
    const rows = Array.from({ length: Math.min(BATCH, counts.candidatos - start) }, (_, i) => {
      const n = start + i
      const status = STATUSES[n % STATUSES.length]!
      const email = `candidato-${n + 1}-${run}@example.com`
      return {
        nome: `Candidato ${n + 1}`,
        email,
        email_chave: emailKey(email),
        status,
        vaga_id: status === 'cadastrado' || vagaIds.length === 0 ? null : vagaIds[Math.floor(n / STATUSES.length) % vagaIds.length]!
      }
    })
    const inserted = await db.insertInto('candidatos').values(rows).returning(['id', 'status', 'vaga_id']).execute()
    if (sampleCandidatoId === '') sampleCandidatoId = inserted.find(row => row.status === 'inscrito')?.id ?? inserted[0]?.id ?? ''
  }
  return { vagaIds, sampleCandidatoId }
}

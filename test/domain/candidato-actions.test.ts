import t from 'tap'
import { allowedCalls, decide, ACTION_CALLS, type CandidatoState, type ActionCall } from '../../src/domain/candidato-actions.ts'

const A = '00000000-0000-4000-8000-00000000000a'
const B = '00000000-0000-4000-8000-00000000000b'
const C = '00000000-0000-4000-8000-00000000000c'

// Every kind of state a candidato can be in, with what each move must do from it, written out by hand.
// `ok: state` is the expected next state; `no` means a 409 ActionNotAllowed refusal.
interface Expectation { from: CandidatoState, name: string, outcomes: Record<string, CandidatoState | 'no'> }

const open = { id: C, status: 'aberta' as const }

const table: Expectation[] = [
  {
    name: 'cadastrado',
    from: { status: 'cadastrado', vagaId: null, transferidoDe: null },
    outcomes: {
      'POST candidatar': { status: 'inscrito', vagaId: C, transferidoDe: null },
      'POST aprovar': 'no',
      'DELETE aprovar': 'no',
      'POST reprovar': 'no',
      'DELETE reprovar': 'no',
      'POST transferir': 'no',
      'DELETE transferir': 'no'
    }
  },
  {
    name: 'inscrito, never transferred',
    from: { status: 'inscrito', vagaId: A, transferidoDe: null },
    outcomes: {
      'POST candidatar': 'no',
      'POST aprovar': { status: 'aprovado', vagaId: A, transferidoDe: null },
      'DELETE aprovar': 'no',
      'POST reprovar': { status: 'reprovado', vagaId: A, transferidoDe: null },
      'DELETE reprovar': 'no',
      'POST transferir': { status: 'inscrito', vagaId: C, transferidoDe: A },
      'DELETE transferir': 'no'
    }
  },
  {
    name: 'inscrito after a transfer from A to B',
    from: { status: 'inscrito', vagaId: B, transferidoDe: A },
    outcomes: {
      'POST candidatar': 'no',
      'POST aprovar': { status: 'aprovado', vagaId: B, transferidoDe: A },
      'DELETE aprovar': 'no',
      'POST reprovar': { status: 'reprovado', vagaId: B, transferidoDe: A },
      'DELETE reprovar': 'no',
      'POST transferir': { status: 'inscrito', vagaId: C, transferidoDe: B },
      'DELETE transferir': { status: 'inscrito', vagaId: A, transferidoDe: null }
    }
  },
  {
    name: 'aprovado',
    from: { status: 'aprovado', vagaId: B, transferidoDe: A },
    outcomes: {
      'POST candidatar': 'no',
      'POST aprovar': 'no',
      'DELETE aprovar': { status: 'inscrito', vagaId: B, transferidoDe: A },
      'POST reprovar': 'no',
      'DELETE reprovar': 'no',
      'POST transferir': 'no',
      'DELETE transferir': 'no'
    }
  },
  {
    name: 'reprovado',
    from: { status: 'reprovado', vagaId: A, transferidoDe: null },
    outcomes: {
      'POST candidatar': 'no',
      'POST aprovar': 'no',
      'DELETE aprovar': 'no',
      'POST reprovar': 'no',
      'DELETE reprovar': { status: 'inscrito', vagaId: A, transferidoDe: null },
      'POST transferir': 'no',
      'DELETE transferir': 'no'
    }
  }
]

const key = (move: ActionCall): string => `${move.method} ${move.action}`

t.test('the table covers every move from every state', async t => {
  for (const row of table) t.same(Object.keys(row.outcomes).sort(), ACTION_CALLS.map(key).sort(), row.name)
})

for (const row of table) {
  t.test(`from ${row.name}`, async t => {
    const expectedAllowed = ACTION_CALLS.filter(move => row.outcomes[key(move)] !== 'no')
    t.same(allowedCalls(row.from), expectedAllowed, 'allowedCalls lists exactly the moves that succeed')
    for (const move of ACTION_CALLS) {
      const expected = row.outcomes[key(move)]
      const decision = decide(row.from, move, open)
      if (expected === 'no') {
        t.same(decision, {
          allowed: false,
          refusal: {
            code: 'ActionNotAllowed',
            detail: decision.allowed ? '' : decision.refusal.detail,
            currentStatus: row.from.status,
            allowedActions: expectedAllowed
          }
        }, `${key(move)} is refused`)
        if (!decision.allowed) {
          t.match(decision.refusal.detail, row.from.status, 'the refusal names the current state')
          for (const allowed of expectedAllowed) t.match(decision.refusal.detail, key(allowed), 'and each allowed action')
        }
      } else {
        t.same(decision, { allowed: true, next: expected }, `${key(move)} leads to ${expected.status}`)
      }
    }
  })
}

t.test('a closed destination vaga refuses candidatar and transferir, whatever else holds', async t => {
  const closed = { id: C, status: 'fechada' as const }
  t.match(decide({ status: 'cadastrado', vagaId: null, transferidoDe: null }, { action: 'candidatar', method: 'POST' }, closed),
    { allowed: false, refusal: { code: 'VagaFechada', vagaId: C } })
  t.match(decide({ status: 'inscrito', vagaId: A, transferidoDe: null }, { action: 'transferir', method: 'POST' }, closed),
    { allowed: false, refusal: { code: 'VagaFechada', vagaId: C } })
  // The state is checked first: an aprovado candidato is told the action is not allowed, not that the vaga is closed.
  t.match(decide({ status: 'aprovado', vagaId: A, transferidoDe: null }, { action: 'transferir', method: 'POST' }, closed),
    { allowed: false, refusal: { code: 'ActionNotAllowed', currentStatus: 'aprovado' } })
})

t.test('a transfer into the vaga the candidato is already in is refused', async t => {
  t.match(decide({ status: 'inscrito', vagaId: A, transferidoDe: null }, { action: 'transferir', method: 'POST' }, { id: A, status: 'aberta' }),
    { allowed: false, refusal: { code: 'SameVaga', vagaId: A } })
})

t.test('cancelling a transfer goes back once: the cancelled transfer cannot be cancelled again', async t => {
  let state: CandidatoState = { status: 'cadastrado', vagaId: null, transferidoDe: null }
  const step = (move: ActionCall, target?: { id: string, status: 'aberta' }): void => {
    const decision = decide(state, move, target)
    if (!decision.allowed) throw new Error(decision.refusal.detail)
    state = decision.next
  }
  step({ action: 'candidatar', method: 'POST' }, { id: A, status: 'aberta' })
  step({ action: 'transferir', method: 'POST' }, { id: B, status: 'aberta' })
  step({ action: 'transferir', method: 'POST' }, { id: C, status: 'aberta' })
  step({ action: 'transferir', method: 'DELETE' })
  t.same(state, { status: 'inscrito', vagaId: B, transferidoDe: null }, 'back to the vaga before the latest transfer')
  t.match(decide(state, { action: 'transferir', method: 'DELETE' }), { allowed: false, refusal: { code: 'ActionNotAllowed' } })
  step({ action: 'aprovar', method: 'POST' })
  step({ action: 'aprovar', method: 'DELETE' })
  step({ action: 'reprovar', method: 'POST' })
  step({ action: 'reprovar', method: 'DELETE' })
  t.same(state, { status: 'inscrito', vagaId: B, transferidoDe: null })
})

t.test('candidatar and transferir need their destination', async t => {
  t.throws(() => decide({ status: 'cadastrado', vagaId: null, transferidoDe: null }, { action: 'candidatar', method: 'POST' }), TypeError)
})

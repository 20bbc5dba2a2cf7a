// The candidato state machine: which actions each state allows and where each one leads.
// Pure functions of the current state; the storage layer applies a decision atomically.
import type { CandidatoStatus } from './candidato.js'
import { acceptsCandidatos, type VagaStatus } from './vaga.js'

export const CANDIDATO_ACTIONS = ['candidatar', 'aprovar', 'reprovar', 'transferir'] as const
export type CandidatoAction = typeof CANDIDATO_ACTIONS[number]

/** POST performs an action; DELETE cancels it. */
export type ActionMethod = 'POST' | 'DELETE'

export interface Move {
  action: CandidatoAction
  method: ActionMethod
}

/** Every move the service knows, in the order links and refusals list them. */
export const MOVES: readonly Move[] = [
  { action: 'candidatar', method: 'POST' },
  { action: 'aprovar', method: 'POST' },
  { action: 'aprovar', method: 'DELETE' },
  { action: 'reprovar', method: 'POST' },
  { action: 'reprovar', method: 'DELETE' },
  { action: 'transferir', method: 'POST' },
  { action: 'transferir', method: 'DELETE' }
]

/** Moves that name a destination vaga in their body. */
export function needsTargetVaga (move: Move): boolean {
  return move.method === 'POST' && (move.action === 'candidatar' || move.action === 'transferir')
}

export interface CandidatoState {
  status: CandidatoStatus
  vagaId: string | null
  transferidoDe: string | null
}

export interface TargetVaga {
  id: string
  status: VagaStatus
}

export type Refusal =
  | { code: 'ActionNotAllowed', detail: string, currentStatus: CandidatoStatus, allowedActions: Move[] }
  | { code: 'VagaFechada', detail: string, vagaId: string }
  | { code: 'SameVaga', detail: string, vagaId: string }

export type Decision =
  | { allowed: true, next: CandidatoState }
  | { allowed: false, refusal: Refusal }

/** Whether the state allows the move, before looking at any destination vaga. */
function possible (state: CandidatoState, move: Move): boolean {
  const post = move.method === 'POST'
  switch (move.action) {
    case 'candidatar': return post && state.status === 'cadastrado'
    case 'aprovar': return state.status === (post ? 'inscrito' : 'aprovado')
    case 'reprovar': return state.status === (post ? 'inscrito' : 'reprovado')
    case 'transferir': return state.status === 'inscrito' && (post ? state.vagaId !== null : state.transferidoDe !== null)
  }
}

/** The moves possible now: one link each in a representation. */
export function allowedMoves (state: CandidatoState): Move[] {
  return MOVES.filter(move => possible(state, move))
}

function describe (move: Move): string {
  return `${move.method} ${move.action}`
}

function refuse (state: CandidatoState, move: Move): Decision {
  const allowedActions = allowedMoves(state)
  const allowed = allowedActions.length === 0 ? 'none' : allowedActions.map(describe).join(', ')
  return {
    allowed: false,
    refusal: {
      code: 'ActionNotAllowed',
      detail: `${describe(move)} is not allowed while the candidato is ${state.status}; allowed now: ${allowed}.`,
      currentStatus: state.status,
      allowedActions
    }
  }
}

/**
 * Decides a move: the resulting state, or why it is refused. `target` is the destination vaga of
 * candidatar and transferir (POST), as read in the same transaction that applies the decision.
 */
export function decide (state: CandidatoState, move: Move, target?: TargetVaga): Decision {
  if (!possible(state, move)) return refuse(state, move)
  if (needsTargetVaga(move)) {
    if (target === undefined) throw new TypeError(`${describe(move)} needs the destination vaga`)
    if (move.action === 'transferir' && target.id === state.vagaId) {
      return { allowed: false, refusal: { code: 'SameVaga', detail: 'The candidato is already in this vaga.', vagaId: target.id } }
    }
    if (!acceptsCandidatos(target)) {
      return { allowed: false, refusal: { code: 'VagaFechada', detail: 'The vaga is closed and accepts no candidatos.', vagaId: target.id } }
    }
  }
  switch (`${move.action} ${move.method}`) {
    case 'candidatar POST':
      return { allowed: true, next: { status: 'inscrito', vagaId: target!.id, transferidoDe: null } }
    case 'aprovar POST':
      return { allowed: true, next: { ...state, status: 'aprovado' } }
    case 'reprovar POST':
      return { allowed: true, next: { ...state, status: 'reprovado' } }
    case 'aprovar DELETE':
    case 'reprovar DELETE':
      return { allowed: true, next: { ...state, status: 'inscrito' } }
    case 'transferir POST':
      return { allowed: true, next: { status: 'inscrito', vagaId: target!.id, transferidoDe: state.vagaId } }
    default: // transferir DELETE: back to the vaga before the latest transfer, which can be cancelled once
      return { allowed: true, next: { status: 'inscrito', vagaId: state.transferidoDe, transferidoDe: null } }
  }
}

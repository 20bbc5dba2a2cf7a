// The candidato state machine: which actions each state allows and where each one leads.
// Pure functions of the current state; the storage layer applies a decision atomically.
import type { CandidatoStatus } from './candidato.ts'
import { acceptsCandidatos, type VagaStatus } from './vaga.ts'

export const CANDIDATO_ACTIONS = ['candidatar', 'aprovar', 'reprovar', 'transferir'] as const
export type CandidatoAction = typeof CANDIDATO_ACTIONS[number]

/** POST performs an action; DELETE cancels it. */
export type ActionMethod = 'POST' | 'DELETE'

export interface ActionCall {
  action: CandidatoAction
  method: ActionMethod
}

/** Every action call the service knows, in the order links and refusals list them. */
export const ACTION_CALLS: readonly ActionCall[] = [
  { action: 'candidatar', method: 'POST' },
  { action: 'aprovar', method: 'POST' },
  { action: 'aprovar', method: 'DELETE' },
  { action: 'reprovar', method: 'POST' },
  { action: 'reprovar', method: 'DELETE' },
  { action: 'transferir', method: 'POST' },
  { action: 'transferir', method: 'DELETE' }
]

/** Calls that name a destination vaga in their body. */
export function needsTargetVaga (call: ActionCall): boolean {
  return call.method === 'POST' && (call.action === 'candidatar' || call.action === 'transferir')
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
  | { code: 'ActionNotAllowed', detail: string, currentStatus: CandidatoStatus, allowedActions: ActionCall[] }
  | { code: 'VagaFechada', detail: string, vagaId: string }
  | { code: 'SameVaga', detail: string, vagaId: string }

export type Decision =
  | { allowed: true, next: CandidatoState }
  | { allowed: false, refusal: Refusal }

/** Whether the state allows the call, before looking at any destination vaga. */
function possible (state: CandidatoState, call: ActionCall): boolean {
  const post = call.method === 'POST'
  switch (call.action) {
    case 'candidatar': return post && state.status === 'cadastrado'
    case 'aprovar': return state.status === (post ? 'inscrito' : 'aprovado')
    case 'reprovar': return state.status === (post ? 'inscrito' : 'reprovado')
    case 'transferir': return state.status === 'inscrito' && (post ? state.vagaId !== null : state.transferidoDe !== null)
  }
}

/** The calls possible now: one link each in a representation. */
export function allowedCalls (state: CandidatoState): ActionCall[] {
  return ACTION_CALLS.filter(call => possible(state, call))
}

function describe (call: ActionCall): string {
  return `${call.method} ${call.action}`
}

function refuse (state: CandidatoState, call: ActionCall): Decision {
  const allowedActions = allowedCalls(state)
  const allowed = allowedActions.length === 0 ? 'none' : allowedActions.map(describe).join(', ')
  return {
    allowed: false,
    refusal: {
      code: 'ActionNotAllowed',
      detail: `${describe(call)} is not allowed while the candidato is ${state.status}; allowed now: ${allowed}.`,
      currentStatus: state.status,
      allowedActions
    }
  }
}

/**
 * Decides an action call: the resulting state, or why it is refused. `target` is the destination vaga of
 * candidatar and transferir (POST), as read in the same transaction that applies the decision.
 */
export function decide (state: CandidatoState, call: ActionCall, target?: TargetVaga): Decision {
  if (!possible(state, call)) return refuse(state, call)
  if (needsTargetVaga(call)) {
    if (target === undefined) throw new TypeError(`${describe(call)} needs the destination vaga`)
    if (call.action === 'transferir' && target.id === state.vagaId) {
      return { allowed: false, refusal: { code: 'SameVaga', detail: 'The candidato is already in this vaga.', vagaId: target.id } }
    }
    if (!acceptsCandidatos(target)) {
      return { allowed: false, refusal: { code: 'VagaFechada', detail: 'The vaga is closed and accepts no candidatos.', vagaId: target.id } }
    }
  }
  switch (`${call.action} ${call.method}`) {
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

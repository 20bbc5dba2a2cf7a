/**
 * The instance's life, in order: `booting` (settings read, plugins loading), `started` (boot over:
 * startup is Healthy), `serving` (readiness was Healthy once: business routes take work), `draining`
 * (shutdown began). It only moves forward; readiness, startup, admission, gRPC health, metrics and
 * the connection drain all read it, and nothing else keeps a state of its own.
 */
export type Phase = 'booting' | 'started' | 'serving' | 'draining'

const ORDER: readonly Phase[] = ['booting', 'started', 'serving', 'draining']

export type PhaseListener = (phase: Phase) => void

export interface Lifecycle {
  phase: () => Phase
  /** Whether the instance has been in `phase` (it may have moved on since). */
  entered: (phase: Phase) => boolean
  /** Moves on to `phase`; a step back or in place is ignored. */
  advance: (phase: Phase) => void
  /** Resolves once `phase` is entered (at once if it was already). */
  reached: (phase: Phase) => Promise<void>
  /** Called synchronously on each phase entered, once per phase. */
  onEnter: (listener: PhaseListener) => void
}

export function createLifecycle (): Lifecycle {
  let current: Phase = 'booting'
  const entered = new Set<Phase>([current])
  const waiting = new Map<Phase, Array<() => void>>()
  const listeners: PhaseListener[] = []

  return {
    phase: () => current,
    entered: phase => entered.has(phase),
    advance (phase) {
      if (ORDER.indexOf(phase) <= ORDER.indexOf(current)) return
      current = phase
      entered.add(phase)
      for (const listener of listeners) listener(phase)
      for (const resolve of waiting.get(phase) ?? []) resolve()
      waiting.delete(phase)
    },
    reached (phase) {
      if (entered.has(phase)) return Promise.resolve()
      return new Promise(resolve => { waiting.set(phase, [...(waiting.get(phase) ?? []), resolve]) })
    },
    onEnter: listener => { listeners.push(listener) }
  }
}

import { spawn, type ChildProcess } from 'node:child_process'
import { connect } from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { eventually } from '../support/eventually.ts'

/** Distinct loopback ports for the instances and the load balancer to listen on. */
export { freePorts } from '../support/closed-port.ts'

export async function waitForPort (port: number, timeoutMs: number): Promise<void> {
  await eventually(async () => {
    const open = await new Promise<boolean>(resolve => {
      const socket = connect(port, '127.0.0.1')
      socket.once('connect', () => { socket.destroy(); resolve(true) })
      socket.once('error', () => resolve(false))
    })
    if (!open) throw new Error(`nothing listens on port ${port} after ${timeoutMs} ms`)
  }, { timeout: timeoutMs, interval: 100 })
}

export interface Child {
  name: string
  process: ChildProcess
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>
  /** The last lines it wrote, for a failure report. */
  output: () => string
  stop: () => Promise<void>
}

/** Starts a process whose output is kept (the last 200 lines) and which is killed at the end. */
export function startChild (name: string, command: string, args: string[], env: Record<string, string>): Child {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const lines: string[] = []
  const keep = (chunk: Buffer): void => {
    lines.push(...chunk.toString().split('\n').filter(line => line !== ''))
    if (lines.length > 200) lines.splice(0, lines.length - 200)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<number | string>(resolve => child.once('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')))
  return {
    name,
    process: child,
    exited,
    output: () => lines.join('\n'),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const done = await Promise.race([exited.then(() => true), sleep(15_000, false, { ref: false })])
      if (!done) {
        child.kill('SIGKILL')
        await exited
      }
    }
  }
}

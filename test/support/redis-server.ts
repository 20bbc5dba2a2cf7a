import { spawn, type ChildProcess } from 'node:child_process'
import { Redis } from 'ioredis'
import { closedPort } from './closed-port.ts'
import { eventually } from './eventually.ts'

export interface OwnRedis {
  url: string
  /** Ends the server (SIGTERM) and waits until it has exited: Redis is down. */
  stop: () => Promise<void>
  /** Starts the server again on the same port and waits until it answers. */
  start: () => Promise<void>
  /** SIGSTOP: connections stay open, nothing is answered. */
  freeze: () => void
  /** SIGCONT. */
  thaw: () => void
}

/**
 * A redis-server of the test's own on a free loopback port, without persistence, ended at teardown:
 * a test that stops or freezes Redis never touches the shared one.
 */
export async function startOwnRedis (t: { teardown: (fn: () => unknown) => void }): Promise<OwnRedis> {
  const port = await closedPort()
  const url = `redis://127.0.0.1:${port}`
  let child: ChildProcess | undefined

  async function start (): Promise<void> {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' })
    const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => 50 })
    probe.on('error', () => {})
    try {
      await eventually(async () => { if (await probe.ping() !== 'PONG') throw new Error('no PONG') }, { timeout: 15_000 })
    } finally {
      probe.disconnect()
    }
  }

  async function stop (): Promise<void> {
    const running = child
    if (running === undefined || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise(resolve => running.once('exit', resolve))
    running.kill('SIGCONT')
    running.kill('SIGTERM')
    await exited
  }

  await start()
  t.teardown(stop)
  return {
    url,
    stop,
    start,
    freeze: () => { child?.kill('SIGSTOP') },
    thaw: () => { child?.kill('SIGCONT') }
  }
}

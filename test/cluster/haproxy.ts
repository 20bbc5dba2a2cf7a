import { connect } from 'node:net'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { startChild, waitForPort, type Child } from './processes.ts'

export interface ServerStat {
  status: string
  /** HTTP requests HAProxy has sent to this server. */
  requests: number
}

export interface Haproxy {
  child: Child
  port: number
  /** One backend server's state, from the admin socket. */
  server: (name: string) => Promise<ServerStat>
}

/** Runs a command on HAProxy's admin socket and returns its answer. */
async function adminCommand (socketPath: string, command: string): Promise<string> {
  return await new Promise((resolve, reject) => {
    const socket = connect(socketPath)
    let answer = ''
    socket.on('data', chunk => { answer += chunk.toString() })
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
    socket.write(`${command}\n`)
  })
}

/**
 * Starts HAProxy in the foreground with deploy/haproxy.cfg, its addresses given through the
 * environment. `checkPath` replaces /health/ready only to try the harness on a build without it.
 */
export async function startHaproxy (options: { dir: string, root: string, port: number, servers: string[], checkPath?: string }): Promise<Haproxy> {
  let configFile = join(options.root, 'deploy/haproxy.cfg')
  if (options.checkPath !== undefined) {
    const text = await readFile(configFile, 'utf8')
    configFile = join(options.dir, 'haproxy.cfg')
    await writeFile(configFile, text.replaceAll('/health/ready', options.checkPath))
  }
  const socketPath = join(options.dir, 'haproxy.sock')
  const env: Record<string, string> = {
    HAPROXY_BIND: `127.0.0.1:${options.port}`,
    HAPROXY_STATS_SOCKET: socketPath
  }
  options.servers.forEach((address, index) => { env[`APP${index + 1}_ADDR`] = address })
  const child = startChild('haproxy', 'haproxy', ['-db', '-f', configFile], env)
  await waitForPort(options.port, 10_000)

  return {
    child,
    port: options.port,
    server: async (name: string) => {
      const csv = (await adminCommand(socketPath, 'show stat')).trim().split('\n')
      const header = csv[0].replace(/^# /, '').split(',')
      const row = csv.slice(1).map(line => line.split(',')).find(cells => cells[0] === 'recrutamento' && cells[1] === name)
      if (row === undefined) throw new Error(`HAProxy does not know server ${name}`)
      const cell = (column: string): string => row[header.indexOf(column)]
      return { status: cell('status'), requests: Number(cell('req_tot') || cell('stot')) }
    }
  }
}

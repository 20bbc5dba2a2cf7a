import { createServer, type AddressInfo } from 'node:net'

/**
 * `count` distinct loopback ports nothing listens on (each was free a moment ago), for processes to
 * listen on. The probes are held open together while the ports are chosen: one at a time, the system
 * may hand out a port just released again, and two instances given the same port looked like two
 * instances behind HAProxy while one had failed to start.
 */
export async function freePorts (count: number): Promise<number[]> {
  const probes = await Promise.all(Array.from({ length: count }, async () => {
    const probe = createServer()
    await new Promise<void>(resolve => probe.listen(0, '127.0.0.1', resolve))
    return probe
  }))
  const ports = probes.map(probe => (probe.address() as AddressInfo).port)
  await Promise.all(probes.map(async probe => await new Promise(resolve => probe.close(resolve))))
  return ports
}

/** A loopback port nothing listens on (it was free a moment ago): a dependency there looks down. */
export async function closedPort (): Promise<number> {
  const [port] = await freePorts(1)
  return port!
}

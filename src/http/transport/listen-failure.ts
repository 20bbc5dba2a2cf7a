// What a failed listen means, for the one line that says why the service did not start.
const CAUSES: Record<string, string> = {
  EADDRINUSE: 'the port is in use by another process',
  EACCES: 'this user may not listen on that port',
  EADDRNOTAVAIL: 'no network interface of this machine has that address',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved right now'
}

/** `cannot listen on host:port (HOST, PORT): the port is in use by another process`: the settings to correct and why. */
export function listenFailure (error: unknown, address: { host: string, port: number }, settings: string): string {
  const { code, message } = error as NodeJS.ErrnoException
  // grpc-js reports a failed bind in its message only ("... errors: [listen EADDRINUSE: ...]").
  const known = code ?? Object.keys(CAUSES).find(each => message.includes(` ${each}`))
  return `cannot listen on ${address.host}:${address.port} (${settings}): ${CAUSES[known ?? ''] ?? message}`
}

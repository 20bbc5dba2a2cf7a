// How the server flushes spans at shutdown without loading the SDK when tracing is off.
let stopSdk: (() => Promise<void>) | undefined

/** Called by the SDK once started: how to flush and stop it. */
export function onTracingStop (stop: () => Promise<void>): void {
  stopSdk = stop
}

/**
 * Sends the spans still buffered and stops the SDK, giving up after `timeoutMs` so a collector that
 * does not answer cannot hold the process past its shutdown bound. Nothing to do when tracing is off.
 */
export async function flushTraces (timeoutMs: number): Promise<void> {
  const stop = stopSdk
  if (stop === undefined) return
  stopSdk = undefined
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<void>(resolve => { timer = setTimeout(resolve, Math.max(0, timeoutMs)) })
  try {
    await Promise.race([stop().catch(() => {}), deadline])
  } finally {
    clearTimeout(timer)
  }
}

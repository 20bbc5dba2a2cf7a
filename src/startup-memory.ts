import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'

type Collect = (options: { type: 'major', execution: 'sync', flavor: 'last-resort' }) => void

/**
 * One full, memory-reducing garbage collection, once the app is ready and before it listens: what
 * start-up allocated (schemas compiled, routes built, modules evaluated) is collected, and V8 gives
 * the young generation's pages back to the system. Node never asks V8 for such a collection, so an
 * idle service would otherwise keep every page start-up touched for good. Traffic commits the
 * young generation again as it needs it; nothing else changes.
 * Node offers the collection only through `gc`, which `--expose-gc` makes global: set for a moment,
 * it installs `gc` in a new context only, and is unset at once.
 */
export function releaseStartupMemory (): void {
  let collect = (globalThis as { gc?: Collect }).gc
  if (collect === undefined) {
    setFlagsFromString('--expose-gc')
    try {
      collect = runInNewContext('gc') as Collect
    } finally {
      setFlagsFromString('--no-expose-gc')
    }
  }
  collect({ type: 'major', execution: 'sync', flavor: 'last-resort' })
}

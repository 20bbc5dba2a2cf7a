import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'

/**
 * The V8 flags the image runs the service with: the Dockerfile's `ENV NODE_OPTIONS=...`, read from the
 * Dockerfile itself so measurements follow what ships.
 */
export const SHIPPED_NODE_OPTIONS: string = (() => {
  const dockerfile = readFileSync(resolve(import.meta.dirname, '../Dockerfile'), 'utf8')
  const match = /^ENV NODE_OPTIONS=(.+)$/m.exec(dockerfile)
  if (match === null) throw new Error('the Dockerfile sets no NODE_OPTIONS')
  return (match[1] as string).trim()
})()

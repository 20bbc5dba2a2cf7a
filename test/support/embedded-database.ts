import { readFileSync } from 'node:fs'

/** The process id of the embedded database that the service process `parent` runs (Linux /proc). */
export function embeddedDatabasePid (parent: number): number {
  const children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/).map(Number)
  const pid = children.find(child => readFileSync(`/proc/${child}/cmdline`, 'utf8').includes('embedded-server'))
  if (pid === undefined) throw new Error(`process ${parent} runs no embedded database`)
  return pid
}

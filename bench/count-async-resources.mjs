// Preload of bench/async-resources.ts: counts the async resources the process creates, by type, and
// writes the running totals to stderr on SIGWINCH (a signal the service leaves alone).
import { createHook } from 'node:async_hooks'

const counts = new Map()
createHook({ init (_id, type) { counts.set(type, (counts.get(type) ?? 0) + 1) } }).enable()
process.on('SIGWINCH', () => { process.stderr.write(`async-resources ${JSON.stringify(Object.fromEntries(counts))}\n`) })

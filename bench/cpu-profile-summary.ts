// `node bench/cpu-profile-summary.ts <file.cpuprofile> [rows]`: where a V8 CPU profile's
// time went, by function (self time) and by source file (self time), the hottest first, then by
// concern. Enough to see what a request costs without a flame graph viewer.
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string, url: string, lineNumber: number }
  children?: number[]
}
interface Profile { nodes: ProfileNode[], samples: number[], timeDeltas: number[] }

const [file, rowsArgument] = process.argv.slice(2)
if (file === undefined) throw new Error('usage: cpu-profile-summary.ts <file.cpuprofile> [rows]')
const rows = Number(rowsArgument ?? 40)
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile
const byId = new Map(profile.nodes.map(node => [node.id, node]))

const selfMicros = new Map<number, number>()
profile.samples.forEach((id, i) => selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)))
const total = [...selfMicros.values()].reduce((sum, micros) => sum + micros, 0)

function shortUrl (url: string): string {
  const modules = url.lastIndexOf('node_modules/')
  if (modules >= 0) return url.slice(modules + 'node_modules/'.length)
  return url.replace(/^file:\/\/.*?\/(dist\/|src\/|routes\/|plugins\/)/, '$1')
}

function tally (key: (node: ProfileNode) => string): Array<[string, number]> {
  const sums = new Map<string, number>()
  for (const [id, micros] of selfMicros) {
    const name = key(byId.get(id)!)
    sums.set(name, (sums.get(name) ?? 0) + micros)
  }
  return [...sums].sort((a, b) => b[1] - a[1]).slice(0, rows)
}

function print (title: string, entries: Array<[string, number]>): void {
  process.stdout.write(`\n${title}\n`)
  for (const [name, micros] of entries) process.stdout.write(`${(100 * micros / total).toFixed(1).padStart(5)} %  ${name}\n`)
}

process.stdout.write(`${(total / 1e6).toFixed(1)} s sampled\n`)
print('self time by function', tally(node => `${node.callFrame.functionName || '(anonymous)'}  ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`))
print('self time by file', tally(node => shortUrl(node.callFrame.url) || `(${node.callFrame.functionName})`))

// Inclusive time: each sample counts once for every distinct function on its stack.
const parent = new Map<number, number>()
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
const inclusive = new Map<string, number>()
for (const [id, micros] of selfMicros) {
  const seen = new Set<string>()
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const node = byId.get(at)!
    const name = `${node.callFrame.functionName || '(anonymous)'}  ${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`
    if (seen.has(name)) continue
    seen.add(name)
    inclusive.set(name, (inclusive.get(name) ?? 0) + micros)
  }
}
print('inclusive time by function', [...inclusive].filter(([name]) => !name.startsWith('(root)')).sort((a, b) => b[1] - a[1]).slice(0, rows))

// Shares by concern: each sample goes to the first concern found walking up its stack from the
// running function (a native function, say, belongs to whoever called it). Idle time and start-up
// (module loading) are left out, so the shares are of the CPU the service spent working.
const CONCERNS: Array<[string, RegExp]> = [
  ['garbage collection', /^\(garbage collector\) /],
  ['idle', /^\(idle\) /],
  ['page and item bodies (links, ETag, cursor)', /dist\/src\/http\/(resources|collection-query)/],
  ['storage (repositories, batching, kysely)', /dist\/src\/storage|kysely\//],
  ['pg driver', /\bpg(-protocol|-types)?\//],
  ['tokens', /bearer-auth|fast-jwt\/|dist\/src\/auth\/|@fastify\/auth\//],
  ['logging', /dist\/src\/logging\/|pino\/|request-serializer|logger-factory/],
  ['metrics', /metrics|prom-client\//],
  ['the service\'s other hooks', /dist\/plugins\/|dist\/src\/(http|versioning)\//],
  ['Fastify, routing, validation', /fastify\/|find-my-way\/|ajv\/|fast-querystring\//],
  ['Node: HTTP, sockets, streams, events', /node:(_http|net|internal\/streams|internal\/stream_base|events|internal\/process|internal\/timers|buffer)/],
  ['start-up', /node:internal\/modules|node:internal\/bootstrap|autoload\//]
]
const concerns = new Map<string, number>()
for (const [id, micros] of selfMicros) {
  let concern = 'other'
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const frame = byId.get(at)!.callFrame
    const found = CONCERNS.find(([, pattern]) => pattern.test(`${frame.functionName} ${frame.url}`))
    if (found !== undefined) {
      concern = found[0]
      break
    }
  }
  concerns.set(concern, (concerns.get(concern) ?? 0) + micros)
}
const working = total - (concerns.get('idle') ?? 0) - (concerns.get('start-up') ?? 0)
process.stdout.write('\nshare of the working CPU by concern\n')
for (const [name, micros] of [...concerns].filter(([name]) => name !== 'idle' && name !== 'start-up').sort((a, b) => b[1] - a[1])) {
  process.stdout.write(`${(100 * micros / working).toFixed(1).padStart(5)} %  ${name}\n`)
}

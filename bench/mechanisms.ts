// `npm run bench:mechanisms`: what each performance mechanism of the service earns on the operation
// it targets, and what each feature it adds on purpose (the token check, the access log, page ETags,
// the event feed) costs there. For each one, a copy of the build without it (a one-line change of the
// compiled code, checked to apply, or a setting or V8 flags) runs beside the build as it ships and the
// same-JSON app (bench/same-json-app.ts, the yardstick of bench:workload), on the seeded database of
// bench:workload, in interleaved rounds of the target operations. Reported: both services' ratios to
// the same-JSON app, and the mechanism's gain (the build's req/s over the copy's). BENCH_MECHANISMS
// selects some by name; the other BENCH_* settings are bench:workload's. Figures go to stdout and
// bench/results/mechanisms.json.
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { choosePinning, compare, printRows, root, writeResults, type Server } from './harness.ts'
import type { OperationName } from './workload-operations.ts'
import { settings, unexpected, WorkloadBench } from './workload-runs.ts'

/** A line of the compiled build replaced: `find` must occur exactly once in `file` (under dist/). */
interface Patch { file: string, find: string, replace: string }

interface Mechanism {
  name: string
  where: string
  targets: OperationName[]
  /** How the build runs without it. */
  without: { patches?: Patch[], env?: Record<string, string>, nodeFlags?: string[] }
  /** Something the service does on purpose for its clients: measured for what it costs, never removed for it. */
  feature?: true
}

const MECHANISMS: Mechanism[] = [
  {
    name: 'reads by id coalesced',
    where: 'src/storage/coalesced-reads.ts',
    targets: ['candidato-read-v1', 'candidato-read-v2', 'mixed'],
    // Each read sends its own statement.
    without: { patches: [{ file: 'src/storage/coalesced-reads.js', find: 'return async (id) => await loader.load(id);', replace: 'return async (id) => (await loadByIds([id]))[0];' }] }
  },
  {
    name: 'named prepared statements',
    where: 'src/storage/prepared-statements.ts',
    targets: ['candidato-read-v1', 'candidatos-list-v1'],
    without: { env: { DATABASE_PREPARED_STATEMENTS: 'false' } }
  },
  {
    name: 'the token check',
    where: 'src/auth/jwt-verifier.ts',
    targets: ['candidato-read-v1', 'candidatos-list-v1'],
    feature: true,
    // The token's claims are read without checking its signature, expiry or cache.
    without: { patches: [{ file: 'src/auth/jwt-verifier.js', find: 'return verify(token);', replace: 'return JSON.parse(Buffer.from(token.split(\'.\')[1], \'base64url\').toString());' }] }
  },
  {
    name: 'the access log',
    where: 'src/logging/',
    targets: ['candidatos-list-v1'],
    feature: true,
    // The access line is written at info.
    without: { env: { LOG_LEVEL: 'warn' } }
  },
  {
    name: 'page ETags',
    where: 'src/http/resources/collection.ts',
    targets: ['candidatos-list-v1'],
    feature: true,
    // Every page gets the same validator: nothing is hashed.
    without: { patches: [{ file: 'src/http/resources/collection.js', find: 'export function pageEtag(version, items, validator, total, links) {', replace: 'export function pageEtag(version, items, validator, total, links) { return \'W/"page"\';' }] }
  },
  {
    name: 'the event feed',
    where: 'src/storage/event-log.ts, candidatos-repository.ts (eventOf)',
    targets: ['candidato-create', 'candidatar'],
    feature: true,
    // Writes add no event: nothing for the feed, nothing to number, nothing for webhooks. A
    // candidato's statement still runs its event's insert, which then inserts no row.
    without: {
      patches: [
        { file: 'src/storage/event-log.js', find: 'export async function appendEvents(trx, events) {', replace: 'export async function appendEvents(trx, events) { return;' },
        // eslint-disable-next-line no-template-curly-in-string -- the compiled line's own template
        { file: 'src/storage/candidatos-repository.js', find: 'from ${sql.table(changed)}`);', replace: 'from ${sql.table(changed)} where false`);' }
      ]
    }
  },
  {
    name: 'the V8 flags of the image',
    where: 'Dockerfile',
    targets: ['candidato-read-v1', 'mixed'],
    without: { nodeFlags: [] }
  }
]

/** A copy of dist/ with one line changed, runnable beside the original (its packages resolve to ours). */
function patchedBuild (scratch: string, name: string, patches: Patch[]): string {
  const dir = join(scratch, name.replaceAll(/[^a-z0-9]+/g, '-'))
  mkdirSync(dir, { recursive: true })
  cpSync(join(root, 'dist'), join(dir, 'dist'), { recursive: true })
  cpSync(join(root, 'package.json'), join(dir, 'package.json'))
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  for (const patch of patches) {
    const file = join(dir, 'dist', patch.file)
    const text = readFileSync(file, 'utf8')
    if (text.split(patch.find).length !== 2) throw new Error(`${patch.file} no longer holds "${patch.find}" exactly once: update the mechanism "${name}"`)
    writeFileSync(file, text.replace(patch.find, patch.replace))
  }
  return join(dir, 'dist/src/server.js')
}

function selectedMechanisms (): Mechanism[] {
  const only = process.env.BENCH_MECHANISMS?.split(',').map(name => name.trim()).filter(name => name !== '')
  if (only === undefined) return MECHANISMS
  const unknown = only.filter(name => !MECHANISMS.some(mechanism => mechanism.name === name))
  if (unknown.length > 0) throw new Error(`no mechanism named ${unknown.join(', ')}; known: ${MECHANISMS.map(mechanism => mechanism.name).join(', ')}`)
  return MECHANISMS.filter(mechanism => only.includes(mechanism.name))
}

interface Row { mechanism: string, where: string, feature: boolean, operation: OperationName, withIt: number, withoutIt: number, gain: number, gainRounds: number[], roundsApart: boolean, unexpectedAnswers: number }

async function main (): Promise<number> {
  const mechanisms = selectedMechanisms()
  const pinning = choosePinning()
  process.stdout.write(`${settings.rounds} interleaved rounds of ${settings.durationSeconds} s after a ${settings.warmupSeconds} s warm-up; ${pinning.note}\n`)
  const bench = await WorkloadBench.seeded(pinning, 'bench_mechanisms')
  const rows: Row[] = []
  try {
    for (const mechanism of mechanisms) {
      // Every server starts afresh for each mechanism: one that served the earlier loads would be
      // warmer than the copy beside it, and its lead would read as the mechanism's gain.
      const service = await bench.startService('service')
      const app = await bench.startSameJsonApp()
      const { patches, env, nodeFlags } = mechanism.without
      const without: Server = await bench.startService(`without ${mechanism.name}`, {
        ...(patches !== undefined && { entry: patchedBuild(bench.scratch, mechanism.name, patches) }),
        ...(env !== undefined && { env }),
        ...(nodeFlags !== undefined && { nodeFlags })
      })
      for (const operation of mechanism.targets) {
        process.stdout.write(`${mechanism.name}, `)
        const of = await bench.measure(operation, { service, without, app })
        const gain = compare(of.service.rounds, of.without.rounds)
        rows.push({
          mechanism: mechanism.name,
          where: mechanism.where,
          feature: mechanism.feature === true,
          operation,
          withIt: compare(of.service.rounds, of.app.rounds).ratio,
          withoutIt: compare(of.without.rounds, of.app.rounds).ratio,
          gain: gain.ratio,
          gainRounds: gain.roundRatios,
          roundsApart: Math.min(...of.service.rounds.map(round => round.requestsPerSecond)) > Math.max(...of.without.rounds.map(round => round.requestsPerSecond)),
          unexpectedAnswers: unexpected([...of.service.rounds, ...of.without.rounds, ...of.app.rounds])
        })
      }
      for (const server of [service, without, app]) await bench.stop(server)
    }
  } finally {
    await bench.close()
  }
  const table = [['mechanism or feature', 'operation', 'with it / same-JSON app', 'without / same-JSON app', 'gain (rounds)', 'verdict']]
  for (const row of rows) {
    const verdict = row.feature
      ? `a feature: costs ${((1 - row.gain) * 100).toFixed(0)} % of the req/s`
      : row.gain >= 1.05 && row.roundsApart ? 'pays (≥ 5 %, rounds apart)' : 'does not pay'
    const flag = row.unexpectedAnswers > 0 ? ` ${row.unexpectedAnswers} unexpected answers` : ''
    table.push([row.mechanism, row.operation, row.withIt.toFixed(2), row.withoutIt.toFixed(2),
      `${row.gain.toFixed(2)} (${Math.min(...row.gainRounds).toFixed(2)}-${Math.max(...row.gainRounds).toFixed(2)})`, verdict + flag])
  }
  printRows(table)
  writeResults('mechanisms.json', pinning, { settings, rows })
  return rows.some(row => row.unexpectedAnswers > 0) ? 1 : 0
}

try {
  process.exitCode = await main()
} catch (error) {
  process.stderr.write(`bench:mechanisms failed: ${(error as Error).message}\n`)
  process.exitCode = 1
}

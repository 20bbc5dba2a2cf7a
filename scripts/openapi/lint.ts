// npm run lint:openapi: the OpenAPI documents as the app serves them (one per version of the version
// table, and ops) pass Redocly's and Spectral's (spectral:oas) rules with no error and no warning, and
// the committed client code is what the documents and the table generate.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { clientTypes, staleClientTypes } from './client-types.ts'
import { servedDocuments } from './documents.ts'

const root = join(import.meta.dirname, '../..')
const bin = (name: string) => join(root, 'node_modules/.bin', name)
const run = promisify(execFile)
// Telemetry and update checks off: the lint reaches nothing outside this machine.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }

/** Runs a linter that exits non-zero on findings; its output is the report either way. */
async function report (command: string, args: string[]): Promise<string> {
  const result = await run(command, args, { env, cwd: root, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout?: string, stderr?: string }) => error)
  return result.stdout ?? ''
}

const failures: string[] = []
const served = await servedDocuments()
const names = served.groups.map(group => group.name)
const dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'))
try {
  const files = []
  for (const name of names) {
    const file = join(dir, `${name}.json`)
    await writeFile(file, JSON.stringify(served.documents[name], null, 2))
    files.push(file)
  }

  for (const file of files) {
    const redocly = JSON.parse(await report(bin('redocly'), ['lint', '--config', join(root, 'redocly.yaml'), '--format', 'json', file])) as
      { totals: { errors: number, warnings: number }, problems: Array<{ ruleId: string, message: string, location: Array<{ pointer: string }> }> }
    for (const problem of redocly.problems) failures.push(`redocly ${file}: ${problem.ruleId} ${problem.message} at ${problem.location[0]?.pointer ?? ''}`)
  }

  const spectral = JSON.parse(await report(bin('spectral'), ['lint', '--ruleset', join(root, '.spectral.yaml'), '--format', 'json', '--quiet', ...files]) || '[]') as
    Array<{ code: string, message: string, source: string, path: string[] }>
  for (const finding of spectral) failures.push(`spectral ${finding.source}: ${finding.code} ${finding.message} at ${finding.path.join('.')}`)

  const stale = await staleClientTypes(await clientTypes(served))
  for (const name of stale) failures.push(`clients/typescript/src/generated/${name} differs from what the documents and the version table generate; run npm run client:generate and commit the result`)
} finally {
  await rm(dir, { recursive: true, force: true })
}

if (failures.length > 0) {
  process.stderr.write(`${failures.join('\n')}\n${failures.length} OpenAPI problem(s)\n`)
  process.exit(1)
}
process.stdout.write(`OpenAPI: ${names.join(', ')} documents lint clean (Redocly, Spectral); the client types are current\n`)

import t, { type Test } from 'tap'
import { execFile } from 'node:child_process'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'
import { ALL_SCOPES, build, mintToken } from '../helper.ts'
import { startFaultProxy } from '../support/fault-proxy.ts'
import { freshPostgresDatabase } from '../support/services.ts'

// The typed client as a consumer gets it: packed with npm, installed from the tarball into a project
// outside the repository, compiled with strict settings and run on plain Node.js against the service,
// through a network that loses the answer of its first create and refuses its first list.

const root = join(import.meta.dirname, '../..')
const tsc = join(root, 'node_modules/typescript/bin/tsc')
// npm, and the build its prepack runs, on this test's Node.js rather than whichever node PATH finds first.
const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}` }
// Bounds for a busy 2-core machine; each step ends on its own long before.
const STEP_TIMEOUT = 180_000

interface Run { code: number | string | null, output: string }

async function run (command: string, args: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<Run> {
  return await new Promise(resolve => {
    execFile(command, args, { cwd, env: { ...env, ...extraEnv }, timeout: STEP_TIMEOUT, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : (error as { code?: number | string }).code ?? error.message
      resolve({ code, output: `${stdout}${stderr}` })
    })
  })
}

async function tempDir (t: Test, prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

const CONSUMER = `import { API_VERSIONS, callInfo, createClient, createOpsClient, createV1Client, createV2Client } from '@recrutamento/api-client'

const baseUrl = process.env.API_URL ?? ''
// Short backoffs: the network in front of the service fails on purpose.
const api = createV2Client({ baseUrl, token: process.env.API_TOKEN, maxRetries: 5, backoffMs: 10 })
// The same version through the generic client.
const generic = createClient('2.0', { baseUrl, token: process.env.API_TOKEN })
const ops = createOpsClient({ baseUrl })

function fail (step: string, error: { status: number, code?: string, detail?: string }): never {
  throw new Error(\`\${step}: \${error.status} \${error.code ?? ''} \${error.detail ?? ''}\`)
}

const vaga = await api.POST('/api/v2/vagas', { body: { titulo: 'Backend (pacote)' } })
if (vaga.error !== undefined) fail('POST vaga', vaga.error)
const candidato = await api.POST('/api/v2/candidatos', { body: { nome: 'Ana Pacote', email: process.env.EMAIL ?? '' } })
if (candidato.error !== undefined) fail('POST candidato', candidato.error)
// The README's example, as written there.
const { data, error, response } = await api.GET('/api/v2/vagas', { params: { query: { status: 'aberta' } } })
if (error !== undefined) throw new Error(\`\${response.status} \${error.code}: \${error.detail}\`)
const listed = data.items.some(item => item.id === vaga.data.id)
const vagaRead = await generic.GET('/api/v2/vagas/{id}', { params: { path: { id: vaga.data.id } } })
if (vagaRead.error !== undefined) fail('GET vaga', vagaRead.error)
const candidatoRead = await api.GET('/api/v2/candidatos/{id}', { params: { path: { id: candidato.data.id } } })
if (candidatoRead.error !== undefined) fail('GET candidato', candidatoRead.error)
const missing = await api.GET('/api/v2/vagas/{id}', { params: { path: { id: '00000000-0000-4000-8000-000000000000' } } })
const ping = await ops.GET('/ping', { parseAs: 'text' })
const everyVaga: string[] = []
for await (const item of api.paginate('/api/v2/vagas', { params: { query: { limit: 1 } } })) everyVaga.push(item.id)
const everyCandidato: string[] = []
for await (const item of createV1Client({ baseUrl, token: process.env.API_TOKEN }).paginate('/api/v1/candidatos', { params: { query: { limit: 1 } } })) everyCandidato.push(item.id)
const ready = await ops.GET('/health/ready')

console.log(JSON.stringify({
  versions: API_VERSIONS,
  vaga: { status: vaga.response.status, id: vaga.data.id, titulo: vaga.data.titulo },
  candidato: { status: candidato.response.status, id: candidato.data.id, email: candidato.data.email, state: candidato.data.status, attempts: callInfo(candidato.response).attempts },
  listed,
  vagaRead: { status: vagaRead.response.status, id: vagaRead.data.id },
  candidatoRead: { status: candidatoRead.response.status, id: candidatoRead.data.id },
  missing: { status: missing.response.status, contentType: missing.response.headers.get('content-type'), code: missing.error?.code, problemStatus: missing.error?.status },
  ping: { status: ping.response.status, body: ping.data },
  paginated: { vagas: everyVaga, candidatos: everyCandidato },
  ready: { status: ready.response.status, body: ready.data?.status }
}))
`

t.test('the client packed with npm installs in a strict TypeScript project outside the repository, compiles and talks to the service', async t => {
  const packed = await tempDir(t, 'api-client-pack-')
  const pack = await run('npm', ['pack', '--pack-destination', packed], join(root, 'clients/typescript'))
  t.equal(pack.code, 0, 'npm pack succeeds', { output: pack.output })
  const [tarball] = (await readdir(packed)).filter(name => name.endsWith('.tgz'))
  if (tarball === undefined) return t.fail(`npm pack made no tarball:\n${pack.output}`)

  const project = await tempDir(t, 'api-client-consumer-')
  // The @types/node the repository installed: it is in the npm cache, as openapi-fetch is.
  const typesNode = JSON.parse(await readFile(join(root, 'node_modules/@types/node/package.json'), 'utf8')) as { version: string }
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  await writeFile(join(project, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      types: ['node'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      outDir: 'out'
    },
    files: ['consumer.ts']
  }))
  await writeFile(join(project, 'consumer.ts'), CONSUMER)
  const install = await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', join(packed, tarball), `@types/node@${typesNode.version}`], project)
  t.equal(install.code, 0, 'npm install of the tarball succeeds', { output: install.output })

  const compile = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], project)
  t.equal(compile.code, 0, 'tsc compiles the consumer without errors', { output: compile.output })
  if (compile.code !== 0) return

  // The embedded database, or PostgreSQL when the run has one.
  const database: Record<string, string> = (process.env.TEST_DATABASE_URL ?? '') === '' ? {} : { DATABASE_URL: (await freshPostgresDatabase(t))! }
  const app = await build(t, { env: database })
  await app.health.lifecycle.reached('serving')
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  const email = `ana.pacote.${Date.now().toString(36)}@example.com`
  const token = await mintToken({ scope: ALL_SCOPES, ttl: '1h' })
  const proxy = await startFaultProxy(t, baseUrl)
  const faults = new Map([['POST /api/v2/candidatos', 'drop-after'], ['GET /api/v2/vagas?status=aberta', '503']] as const)
  proxy.choose = (_n, request) => {
    const key = `${request.method ?? ''} ${request.url ?? ''}`
    const fault = faults.get(key as never)
    faults.delete(key as never)
    return fault
  }

  const consumer = await run(process.execPath, ['out/consumer.js'], project, { API_URL: proxy.url, API_TOKEN: token, EMAIL: email })
  t.equal(consumer.code, 0, 'the compiled consumer runs', { output: consumer.output })
  if (consumer.code !== 0) return
  const printed = JSON.parse(consumer.output) as Record<string, Record<string, unknown>>
  t.match(printed, {
    versions: app.apiVersions.versions.map(v => v.version),
    vaga: { status: 201, id: String, titulo: 'Backend (pacote)' },
    candidato: { status: 201, id: String, email, state: 'cadastrado', attempts: 2 },
    listed: true,
    vagaRead: { status: 200, id: printed.vaga!.id },
    candidatoRead: { status: 200, id: printed.candidato!.id },
    missing: { status: 404, contentType: /^application\/problem\+json/, code: 'NotFound', problemStatus: 404 },
    ping: { status: 200, body: 'pong' },
    ready: { status: 200, body: 'Healthy' },
    paginated: { vagas: [printed.vaga!.id], candidatos: [printed.candidato!.id] }
  }, 'the consumer listed the versions, created, listed and read back a vaga and a candidato, got the problem of an unknown id, reached the operations and paged both versions')
  t.same(proxy.seen.filter(seen => seen.fault !== undefined).map(seen => seen.fault), ['drop-after', '503'], 'the network lost the first create\'s answer and refused the first list')
  const creates = proxy.seen.filter(seen => seen.method === 'POST' && seen.path === '/api/v2/candidatos')
  t.equal(creates.length, 2, 'the create was sent twice')
  t.ok(creates[0]!.idempotencyKey !== undefined && creates[0]!.idempotencyKey === creates[1]!.idempotencyKey, 'with one Idempotency-Key')
  const listed = await app.inject({ url: '/api/v1/candidatos', headers: { authorization: `Bearer ${token}` } })
  t.equal(listed.json<{ total: number }>().total, 1, 'and one candidato exists')
  // What the consumer created is in the service, read without the client.
  const stored = await app.inject({ url: `/api/v2/candidatos/${String(printed.candidato!.id)}`, headers: { authorization: `Bearer ${token}` } })
  t.equal(stored.json<{ email: string }>().email, email, 'the service stored the candidato the consumer created')
})

import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { delimiter, dirname, join } from 'node:path'

// Adding a version is adding one row to the version table (docs/architecture.md, "How to add a
// version"): in a copy of the repository with a 3.0 row, and nothing else changed by hand, the
// client generator writes the 3.0 types and client, the lint passes, and the tests that walk every
// version (fuzz, declared answers, OpenAPI documents, docs in a browser) cover /api/v3.

const root = join(import.meta.dirname, '../..')
// npm and tsx on this test's Node.js rather than whichever node PATH finds first.
const PATH = `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`
// Bounds for a busy 2-core machine; each step ends on its own long before.
const STEP_TIMEOUT = 400_000
t.setTimeout(900_000)

interface Run { code: number | string | null, output: string }

async function run (command: string, args: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<Run> {
  return await new Promise(resolve => {
    execFile(command, args, { cwd, env: { ...process.env, PATH, ...env }, timeout: STEP_TIMEOUT, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : (error as { code?: number | string }).code ?? error.message
      resolve({ code, output: `${stdout}${stderr}` })
    })
  })
}

/** The repository's files (tracked, and new ones not ignored) copied to `to`, with its node_modules linked. */
async function copyRepository (to: string): Promise<void> {
  const listed = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root)
  if (listed.code !== 0) throw new Error(`git ls-files: ${listed.output}`)
  for (const file of new Set(listed.output.split('\0').filter(name => name !== ''))) {
    // A file deleted in the working copy but not yet in the index.
    if (!existsSync(join(root, file))) continue
    await mkdir(dirname(join(to, file)), { recursive: true })
    await copyFile(join(root, file), join(to, file))
  }
  await symlink(join(root, 'node_modules'), join(to, 'node_modules'), 'dir')
}

const TABLE = 'src/versioning/versions.ts'

/** The one hand-made change: a row for 3.0 at the end of the version table. */
async function addVersionRow (repository: string): Promise<void> {
  const file = join(repository, TABLE)
  const source = await readFile(file, 'utf8')
  const start = source.indexOf('export const API_VERSION_ROWS')
  const end = source.indexOf('\n]', start)
  if (start < 0 || end < 0) throw new Error(`${TABLE}: API_VERSION_ROWS not found`)
  await writeFile(file, `${source.slice(0, end)},\n  { version: '3.0' }${source.slice(end)}`)
}

// A consumer of the client, type-checked with the rest of the copy: the 3.0 client exists and knows its paths.
const CONSUMER = `import { API_VERSIONS, createClient, createV3Client } from '../clients/typescript/src/index.js'

export const versions: ReadonlyArray<'1.0' | '2.0' | '3.0'> = API_VERSIONS
export const named = createV3Client({ baseUrl: 'http://127.0.0.1' }).GET('/api/v3/vagas', { params: { query: { limit: 1 } } })
export const generic = createClient('3.0', { baseUrl: 'http://127.0.0.1' }).GET('/api/v3/candidatos/{id}', { params: { path: { id: 'x' } } })
`

const TESTS = ['test/fuzz/openapi-fuzz.test.ts', 'test/openapi/declared-answers.test.ts', 'test/plugins/openapi.test.ts', 'test/plugins/docs-browser.test.ts']
// The docs browser test skips itself without Chromium, except under CI (test/plugins/docs-browser.test.ts).
const BROWSER = existsSync('/usr/bin/chromium') || process.env.CI === 'true'

t.test('with a 3.0 row added to the version table, the generated client, the lint and the tests cover 3.0', async t => {
  const repository = await mkdtemp(join(tmpdir(), 'extra-version-'))
  t.teardown(() => rm(repository, { recursive: true, force: true }))
  await copyRepository(repository)
  await addVersionRow(repository)

  const generate = await run('npm', ['run', 'client:generate'], repository)
  t.equal(generate.code, 0, 'npm run client:generate succeeds', { output: generate.output })
  const generated = join(repository, 'clients/typescript/src/generated')
  t.match(await readFile(join(generated, 'v3.ts'), 'utf8').catch(() => ''), '"/api/v3/vagas/{id}/candidatos"', 'the v3 types are generated from the v3 document')
  const index = await readFile(join(generated, 'versions.ts'), 'utf8')
  t.match(index, "'3.0': V3Paths", 'the index of versions has 3.0')
  t.match(index, 'export function createV3Client', 'and its named client')
  await writeFile(join(repository, 'test/extra-version-consumer.ts'), CONSUMER)

  // The lint's parts side by side: eslint on what changed (the rest is the repository's, linted as it
  // is), the type check of everything, the OpenAPI lint with its check of the generated client; and
  // the tests that walk every version. The tests run without PostgreSQL: the embedded database suffices.
  const tap = join(root, 'node_modules/.bin/tap')
  const [eslint, tsc, openapi, tests] = await Promise.all([
    run('npx', ['eslint', TABLE, 'clients/typescript/src', 'test/extra-version-consumer.ts'], repository),
    run('npx', ['tsc', '-p', 'tsconfig.test.json'], repository),
    run('npm', ['run', 'lint:openapi'], repository),
    run(tap, ['--disable-coverage', '--jobs=2', '-R', 'tap', ...TESTS], repository, {
      FASTIFY_AUTOLOAD_TYPESCRIPT: '1', FUZZ_RUNS: '2', TEST_DATABASE_URL: undefined, CI: undefined
    })
  ])
  t.equal(eslint.code, 0, 'eslint passes', { output: eslint.output })
  t.equal(tsc.code, 0, 'tsc passes, with a consumer of the 3.0 client', { output: tsc.output })
  t.equal(openapi.code, 0, 'npm run lint:openapi passes', { output: openapi.output })
  t.match(openapi.output, 'OpenAPI: v1, v2, v3, ops documents lint clean', 'the OpenAPI lint read the v3 document')

  t.equal(tests.code, 0, 'the tests pass', { output: tests.output.slice(-20_000) })
  t.notMatch(tests.output, /^\s*not ok /m, 'no test failed')
  // What each test file says it covered: assertions that name 3.0 (each passed, as nothing failed).
  for (const name of [
    'operations from the v1, v2, v3, ops documents',
    'every published document is fuzzed',
    'declarations checked in the v1, v2, v3, ops documents',
    'v3 POST /api/v3/vagas declares 415 UnsupportedMediaType',
    'limit on the three list operations of each of 3 versions',
    'v3 holds only /api/v3/ paths',
    'v3: its own gadget route',
    'v3: info.version',
    ...BROWSER ? ['v3: /api/v3/versions is rendered', 'v3: title names 3.0'] : []
  ]) {
    t.match(tests.output, new RegExp(`^\\s*ok \\d+ - .*${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`, 'm'), `a passing assertion: ${name}`)
  }
})

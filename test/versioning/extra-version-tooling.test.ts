import t from 'tap'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, cp, mkdir, mkdtemp, readFile, readdir, realpath, rm, symlink, writeFile } from 'node:fs/promises'
import { basename, delimiter, dirname, join } from 'node:path'
import { API_VERSION_ROWS, groupOf } from '../../src/versioning/versions.ts'
import { nextVersion } from '../support/next-version.ts'
import { currentTemplates } from '../support/pglite-template.ts'
import { scratchDir } from '../support/scratch-dir.ts'

// Adding a version is adding one row to the version table (docs/architecture.md, "How to add a
// version"): in a copy of the repository with a row for the next major after the table's highest,
// and nothing else changed by hand, the client generator writes its types and client, the lint
// passes, and the tests of versioning, OpenAPI and docs (with the fuzz and the docs in a browser,
// which walk every version) pass and cover it.

const root = join(import.meta.dirname, '../..')
// npm and the scripts on this test's Node.js rather than whichever node PATH finds first.
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
  // node_modules may itself be a symlink to a shared install, which `node_modules/` does not ignore.
  const files = listed.output.split('\0').filter(name => name !== '' && name !== 'node_modules' && !name.startsWith('node_modules/'))
  for (const file of new Set(files)) {
    // A file deleted in the working copy but not yet in the index.
    if (!existsSync(join(root, file))) continue
    await mkdir(dirname(join(to, file)), { recursive: true })
    await copyFile(join(root, file), join(to, file))
  }
  await symlink(await realpath(join(root, 'node_modules')), join(to, 'node_modules'), 'dir')
  // The embedded database templates, so that the copy's tests do not make them again.
  for (const template of await currentTemplates()) {
    await cp(template, join(to, '.tap', basename(template)), { recursive: true })
  }
}

const TABLE = 'src/versioning/versions.ts'
const next = nextVersion()
const major = next.major
const versions = [...API_VERSION_ROWS.map(row => row.version), next.version]
const groups = versions.map(groupOf)

/** The one hand-made change: a row for the next version at the end of the version table. */
async function addVersionRow (repository: string): Promise<void> {
  const file = join(repository, TABLE)
  const source = await readFile(file, 'utf8')
  const start = source.indexOf('export const API_VERSION_ROWS')
  const end = source.indexOf('\n]', start)
  if (start < 0 || end < 0) throw new Error(`${TABLE}: API_VERSION_ROWS not found`)
  await writeFile(file, `${source.slice(0, end)},\n  { version: '${next.version}' }${source.slice(end)}`)
}

// A consumer of the client, type-checked with the rest of the copy: the new version's client exists and knows its paths.
const CONSUMER = `import { API_VERSIONS, createClient, createV${major}Client } from '../clients/typescript/src/index.ts'

export const versions: ReadonlyArray<${versions.map(version => `'${version}'`).join(' | ')}> = API_VERSIONS
export const named = createV${major}Client({ baseUrl: 'http://127.0.0.1' }).GET('/api/${next.group}/vagas', { params: { query: { limit: 1 } } })
export const generic = createClient('${next.version}', { baseUrl: 'http://127.0.0.1' }).GET('/api/${next.group}/candidatos/{id}', { params: { path: { id: 'x' } } })
`

/** The test files of the versioning, OpenAPI and docs folders (this one aside: it would copy itself), and those that walk every version. */
async function testFiles (): Promise<string[]> {
  const folders = await Promise.all(['test/versioning', 'test/openapi', 'test/docs'].map(async folder =>
    (await readdir(join(root, folder))).filter(name => name.endsWith('.test.ts')).map(name => `${folder}/${name}`)))
  return [...folders.flat().filter(file => file !== 'test/versioning/extra-version-tooling.test.ts'),
    'test/fuzz/openapi-fuzz.test.ts', 'test/plugins/openapi.test.ts', 'test/plugins/docs-browser.test.ts']
}
// The docs browser test skips itself without Chromium, except under CI (test/plugins/docs-browser.test.ts).
const BROWSER = existsSync('/usr/bin/chromium') || process.env.CI === 'true'

t.test(`with a ${next.version} row added to the version table, the generated client, the lint and the tests cover ${next.version}`, async t => {
  const repository = await mkdtemp(join(scratchDir, 'extra-version-'))
  t.teardown(() => rm(repository, { recursive: true, force: true }))
  await copyRepository(repository)
  await addVersionRow(repository)

  const generate = await run('npm', ['run', 'client:generate'], repository)
  t.equal(generate.code, 0, 'npm run client:generate succeeds', { output: generate.output })
  const generated = join(repository, 'clients/typescript/src/generated')
  t.match(await readFile(join(generated, `${next.group}.ts`), 'utf8').catch(() => ''), `"/api/${next.group}/vagas/{id}/candidatos"`, `the ${next.group} types are generated from the ${next.group} document`)
  const index = await readFile(join(generated, 'versions.ts'), 'utf8')
  t.match(index, `'${next.version}': V${major}Paths`, `the index of versions has ${next.version}`)
  t.match(index, `export function createV${major}Client`, 'and its named client')
  await writeFile(join(repository, 'test/extra-version-consumer.ts'), CONSUMER)

  // The lint's parts side by side: eslint on what changed (the rest is the repository's, linted as it
  // is), the type check of everything, the OpenAPI lint with its check of the generated client; and
  // the tests that walk every version. The tests run without PostgreSQL: the embedded database suffices.
  const tap = join(root, 'node_modules/.bin/tap')
  const [eslint, tsc, openapi, tests] = await Promise.all([
    run('npx', ['eslint', TABLE, 'clients/typescript/src', 'test/extra-version-consumer.ts'], repository),
    run('npx', ['tsc', '-p', 'tsconfig.test.json'], repository),
    run('npm', ['run', 'lint:openapi'], repository),
    run(tap, ['--disable-coverage', '--jobs=2', '-R', 'tap', ...await testFiles()], repository, {
      FUZZ_RUNS: '2', TEST_DATABASE_URL: undefined, CI: undefined
    })
  ])
  t.equal(eslint.code, 0, 'eslint passes', { output: eslint.output })
  t.equal(tsc.code, 0, `tsc passes, with a consumer of the ${next.version} client`, { output: tsc.output })
  t.equal(openapi.code, 0, 'npm run lint:openapi passes', { output: openapi.output })
  t.match(openapi.output, `OpenAPI: ${[...groups, 'ops'].join(', ')} documents lint clean`, `the OpenAPI lint read the ${next.group} document`)

  t.equal(tests.code, 0, 'the tests pass', { output: tests.output.slice(-20_000) })
  t.notMatch(tests.output, /^\s*not ok /m, 'no test failed')
  // What each test file says it covered: assertions that name the new version (each passed, as nothing failed).
  const g = next.group
  for (const name of [
    `operations from the ${[...groups, 'ops'].join(', ')} documents`,
    'every published document is fuzzed',
    `declarations checked in the ${[...groups, 'ops'].join(', ')} documents`,
    `${g} POST /api/${g}/vagas declares 415 UnsupportedMediaType`,
    `limit on the three list operations of each of ${groups.length} versions`,
    `${g} holds only /api/${g}/ paths`,
    `${g}: its own gadget route`,
    `${g}: info.version`,
    ...BROWSER ? [`${g}: /api/${g}/versions is rendered`, `${g}: title names ${next.version}`] : []
  ]) {
    t.match(tests.output, new RegExp(`^\\s*ok \\d+ - .*${name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`, 'm'), `a passing assertion: ${name}`)
  }
})

// scripts/start.js, what `npm start` runs, on a fresh clone: it compiles dist/ and writes the build
// info GET /info reports, as `npm run build` does. It runs here on a small copy of the project (its
// scripts, a source tree of two files) so the compile is quick and the project's own dist/ is left alone.
import t, { type Test } from 'tap'
import { execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const root = join(import.meta.dirname, '../..')
const { version } = (await import(join(root, 'package.json'), { with: { type: 'json' } })).default as { version: string }

/** A git clone in miniature: the scripts, package.json, tsconfig.json and an entry that prints the build info. */
function miniClone (t: Test): { dir: string, commit: string, git: (...args: string[]) => string } {
  const dir = mkdtempSync(join(tmpdir(), 'start-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  for (const folder of ['scripts', 'src', 'plugins', 'routes']) mkdirSync(join(dir, folder))
  for (const file of readdirSync(join(root, 'scripts')).filter(name => name.endsWith('.js'))) copyFileSync(join(root, 'scripts', file), join(dir, 'scripts', file))
  for (const file of ['package.json', 'tsconfig.json', 'src/build-info.ts']) copyFileSync(join(root, file), join(dir, file))
  writeFileSync(join(dir, 'src/print-build-info.ts'), "import { buildInfo } from './build-info.ts'\nconsole.log(JSON.stringify(buildInfo))\n")
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' }).trim()
  git('init', '-q')
  git('add', '-A')
  git('commit', '-qm', 'clone')
  return { dir, commit: git('rev-parse', 'HEAD'), git }
}

async function start (dir: string, env: Record<string, string> = { PATH: process.env.PATH ?? '' }): Promise<{ code: number | null, info: unknown, stderr: string }> {
  const child = spawn(process.execPath, ['scripts/start.js', 'src/print-build-info.js'], { cwd: dir, env })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', chunk => { stdout += chunk })
  child.stderr.on('data', chunk => { stderr += chunk })
  const [code] = await once(child, 'exit') as [number | null]
  return { code, info: stdout === '' ? undefined : JSON.parse(stdout.trim().split('\n').at(-1)!), stderr }
}

t.test('a start on a fresh clone compiles and reports the version and commit it was built from', async t => {
  const { dir, commit } = miniClone(t)
  const first = await start(dir)
  t.equal(first.code, 0, first.stderr)
  t.match(first.info, { version, commit }, 'the build info of the compile')

  // A dist/ compiled without its build info (by tsc alone, or an older start) is compiled again.
  rmSync(join(dir, 'dist/build-info.json'), { force: true })
  const again = await start(dir)
  t.equal(again.code, 0, again.stderr)
  t.match(again.info, { version, commit }, 'the build info is written again')
})

t.test('after a commit that changes no source, a start reports the new commit without compiling again', async t => {
  const { dir, git } = miniClone(t)
  t.equal((await start(dir)).code, 0)
  writeFileSync(join(dir, 'NOTES.md'), 'not a source\n')
  git('add', '-A')
  git('commit', '-qm', 'notes')
  const after = await start(dir)
  t.equal(after.code, 0, after.stderr)
  t.match(after.info, { version, commit: git('rev-parse', 'HEAD') }, 'the build info names the new commit')
  t.notMatch(after.stderr, /compiling TypeScript/, 'dist/ was not compiled again')
})

t.test('a start that cannot tell the commit (no git, no SOURCE_COMMIT) keeps the one the build info names', async t => {
  const { dir } = miniClone(t)
  t.equal((await start(dir, { PATH: process.env.PATH ?? '', SOURCE_COMMIT: 'from-the-build' })).code, 0)
  const after = await start(dir, { PATH: '' })
  t.equal(after.code, 0, after.stderr)
  t.match(after.info, { version, commit: 'from-the-build' }, 'not rewritten as unknown')
})

t.test('two starts at once on a stale dist/ compile it once, and both run the compiled entry', async t => {
  const { dir, commit } = miniClone(t)
  const both = await Promise.all([start(dir), start(dir)])
  for (const run of both) t.match(run, { code: 0, info: { commit } }, run.stderr)
  const compiles = both.map(run => run.stderr).join('').match(/compiling TypeScript/g) ?? []
  t.equal(compiles.length, 1, 'one compile')
})

// `npm run lint:layers` holds the layers of docs/architecture.md: run with the project's own rules on
// a scratch tree, it fails on a backward import and on an import cycle, and passes a tree without them.
import t, { type Test } from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { delimiter, dirname, join } from 'node:path'

const root = join(import.meta.dirname, '../..')

function cruise (t: Test, files: Record<string, string>): { status: number | null, output: string } {
  const dir = t.testdir({})
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext' } }))
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'), 'dir')
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  const run = spawnSync('depcruise', ['src', '--config', join(root, '.dependency-cruiser.cjs')], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}` }
  })
  if (run.error !== undefined) throw run.error
  return { status: run.status, output: run.stdout + run.stderr }
}

const config = 'export class ConfigError extends Error {}\n'

t.test('a tree whose imports point down passes', async t => {
  const run = cruise(t, {
    'src/config.ts': config,
    'src/domain/vaga.ts': 'export const TITULO_MAX_LENGTH = 200\n',
    'src/storage/vagas.ts': "import { TITULO_MAX_LENGTH } from '../domain/vaga.ts'\nexport const limit = TITULO_MAX_LENGTH\n"
  })
  t.equal(run.status, 0, run.output)
})

t.test('the domain importing the settings fails', async t => {
  const run = cruise(t, {
    'src/config.ts': config,
    'src/domain/vaga.ts': "import { ConfigError } from '../config.ts'\nexport const refusal = ConfigError\n"
  })
  t.not(run.status, 0)
  t.match(run.output, /domain-imports-nothing: src\/domain\/vaga\.ts → src\/config\.ts/)
})

t.test('the domain importing a package, or storage importing Fastify, fails', async t => {
  const run = cruise(t, {
    'src/domain/vaga.ts': "import { sql } from 'kysely'\nexport const query = sql\n",
    'src/storage/vagas.ts': "import Fastify from 'fastify'\nexport const server = Fastify\n"
  })
  t.not(run.status, 0)
  t.match(run.output, /domain-without-packages: src\/domain\/vaga\.ts →/)
  t.match(run.output, /storage-without-http-packages: src\/storage\/vagas\.ts →/)
})

t.test('two modules importing each other fail; a cycle through a type-only import passes', async t => {
  const cycle = cruise(t, {
    'src/storage/a.ts': "import { b } from './b.ts'\nexport const a = () => b\n",
    'src/storage/b.ts': "import { a } from './a.ts'\nexport const b = () => a\n"
  })
  t.not(cycle.status, 0)
  t.match(cycle.output, /no-circular/)
  const typeOnly = cruise(t, {
    'src/storage/a.ts': "import { b } from './b.ts'\nexport type A = string\nexport const a = () => b\n",
    'src/storage/b.ts': "import type { A } from './a.ts'\nexport const b = (value: A) => value\n"
  })
  t.equal(typeOnly.status, 0, typeOnly.output)
})

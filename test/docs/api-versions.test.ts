import t from 'tap'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { buildVersionTable } from '../../src/versioning/versions.ts'
import { testConfig } from '../helper.ts'

// The versions are rows of one table: docs/api.md points at it rather than copying the list, which a
// new row would leave behind.
const api = readFileSync(join(resolve(import.meta.dirname, '../..'), 'docs/api.md'), 'utf8')

t.test('docs/api.md points at GET /api/versions and the version table, and does not list the versions', async t => {
  t.match(api, '`GET /api/versions` lists the versions served')
  t.match(api, '`src/versioning/versions.ts`')
  const { versions } = buildVersionTable(testConfig())
  const listed = versions.map(v => v.version)
  t.notMatch(api, listed.join(', '), 'not as a header value')
  t.notMatch(api, listed.map(v => `\`${v}\``).join(' and '), 'not as prose')
})

import t from 'tap'
import { API_VERSION_ROWS, buildVersionTable } from '../../src/versioning/versions.ts'
import { build, testConfig } from '../helper.ts'
import { nextVersion } from '../support/next-version.ts'

// One row per version: a repeated row is refused by the table, with its own message, before any
// plugin registers the version twice.

const { version } = nextVersion()
const TWICE = /^The API version table has version (\d+\.\d+) twice: one row per version$/

t.test('the table refuses a version given twice', async t => {
  t.throws(() => buildVersionTable(testConfig(), [...API_VERSION_ROWS, { version }, { version }]),
    { message: `The API version table has version ${version} twice: one row per version` })
  const [first] = API_VERSION_ROWS
  t.throws(() => buildVersionTable(testConfig(), [...API_VERSION_ROWS, { version: first!.version }]), { message: TWICE })
})

t.test('the table refuses two rows of one group', async t => {
  t.throws(() => buildVersionTable(testConfig(), [...API_VERSION_ROWS, { version }, { version: version.slice(0, -2) }]),
    { message: `The API version table has versions ${version} and ${version.slice(0, -2)}, both v${version.slice(0, -2)}: one row per version` })
})

t.test('an app given a version twice does not start, and says why', async t => {
  await t.rejects(build(t, { versionRows: [...API_VERSION_ROWS, { version }, { version }] }),
    { message: `The API version table has version ${version} twice: one row per version` })
})

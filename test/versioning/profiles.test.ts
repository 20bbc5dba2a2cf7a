import t from 'tap'
import { servedVersions, versionedResource } from '../../src/versioning/profiles.ts'
import { API_VERSION_ROWS, buildVersionTable } from '../../src/versioning/versions.ts'
import { testConfig } from '../helper.ts'
import { nextMajor } from '../support/next-version.ts'

interface Profile { paging: string, shape: string }
const widgets = versionedResource<Profile>('widgets', { paging: 'offset', shape: 'flat' }, { '2.0': { paging: 'cursor' } })

t.test('every version of the table is served; a version keeps what it does not change', async t => {
  const major = nextMajor()
  const table = buildVersionTable(testConfig(), [...API_VERSION_ROWS, { version: `${major}.0` }, { version: `${major}.1`, profiles: { widgets: { shape: 'nested' }, gadgets: { shape: 'round' } } }])
  const served = servedVersions(table, widgets)
  t.same(served.map(({ version }) => version), [...API_VERSION_ROWS.map(({ version }) => version), `${major}.0`, `${major}.1`])
  t.same(served.slice(0, 2), [
    { version: '1.0', profile: { paging: 'offset', shape: 'flat' } },
    { version: '2.0', profile: { paging: 'cursor', shape: 'flat' } }
  ])
  t.same(served.slice(-2), [
    { version: `${major}.0`, profile: { paging: 'cursor', shape: 'flat' } },
    { version: `${major}.1`, profile: { paging: 'cursor', shape: 'nested' } }
  ])
})

t.test('changes for a version the table does not have stop the start', async t => {
  const table = buildVersionTable(testConfig())
  const absent = `${nextMajor()}.0`
  t.throws(() => servedVersions(table, versionedResource<Profile>('widgets', { paging: 'offset', shape: 'flat' }, { [absent]: { shape: 'nested' } })),
    { message: new RegExp(`widgets resource declares changes for API version ${absent.replace('.', '\\.')}`) })
})

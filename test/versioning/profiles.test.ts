import t from 'tap'
import { servedVersions, versionedResource } from '../../src/versioning/profiles.js'
import { API_VERSION_ROWS, buildVersionTable } from '../../src/versioning/versions.js'
import { testConfig } from '../helper.js'

interface Profile { paging: string, shape: string }
const widgets = versionedResource<Profile>('widgets', { paging: 'offset', shape: 'flat' }, { '2.0': { paging: 'cursor' } })

t.test('every version of the table is served; a version keeps what it does not change', async t => {
  const table = buildVersionTable(testConfig(), [...API_VERSION_ROWS, { version: '3.0' }, { version: '3.1', profiles: { widgets: { shape: 'nested' }, gadgets: { shape: 'round' } } }])
  t.same(servedVersions(table, widgets), [
    { version: '1.0', profile: { paging: 'offset', shape: 'flat' } },
    { version: '2.0', profile: { paging: 'cursor', shape: 'flat' } },
    { version: '3.0', profile: { paging: 'cursor', shape: 'flat' } },
    { version: '3.1', profile: { paging: 'cursor', shape: 'nested' } }
  ])
})

t.test('changes for a version the table does not have stop the start', async t => {
  const table = buildVersionTable(testConfig())
  t.throws(() => servedVersions(table, versionedResource<Profile>('widgets', { paging: 'offset', shape: 'flat' }, { '4.0': { shape: 'nested' } })),
    /widgets resource declares changes for API version 4\.0/)
})

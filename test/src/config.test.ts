import t from 'tap'
import { loadConfig } from '../../src/config.js'

t.test('RETRY_AFTER_SECONDS: 5 by default, its older name SHED_RETRY_AFTER_SECONDS still sets it, the newer name wins', async t => {
  t.equal(loadConfig({}).RETRY_AFTER_SECONDS, 5)
  t.equal(loadConfig({ RETRY_AFTER_SECONDS: '30' }).RETRY_AFTER_SECONDS, 30)
  t.equal(loadConfig({ SHED_RETRY_AFTER_SECONDS: '7' }).RETRY_AFTER_SECONDS, 7)
  t.equal(loadConfig({ SHED_RETRY_AFTER_SECONDS: '7', RETRY_AFTER_SECONDS: '12' }).RETRY_AFTER_SECONDS, 12)
  t.throws(() => loadConfig({ RETRY_AFTER_SECONDS: '0' }), /RETRY_AFTER_SECONDS/)
  t.throws(() => loadConfig({ SHED_RETRY_AFTER_SECONDS: 'soon' }), /RETRY_AFTER_SECONDS/)
})

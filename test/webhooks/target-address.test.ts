import t from 'tap'
import { isPublicAddress } from '../../src/webhooks/target-address.ts'

t.test('loopback, private, link-local and other local addresses are not public', async t => {
  for (const address of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0',
    '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1',
    '224.0.0.1', '255.255.255.255', 'not an address']) {
    t.notOk(isPublicAddress(address), address)
  }
})

t.test('public addresses are', async t => {
  for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.ok(isPublicAddress(address), address)
})

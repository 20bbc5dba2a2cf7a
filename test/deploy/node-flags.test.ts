// The image and `npm start` run Node with the same V8 flags: they are read from the Dockerfile's CMD.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { SHIPPED_NODE_FLAGS } from '../../bench/shipped-process.js'

const root = join(import.meta.dirname, '../..')

test('npm start passes the V8 flags the image runs with', async t => {
  t.ok(SHIPPED_NODE_FLAGS.includes('--min-semi-space-size=64'), `the image fixes the young generation: ${SHIPPED_NODE_FLAGS.join(' ')}`)
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start
  t.equal(start, `node ${SHIPPED_NODE_FLAGS.join(' ')} scripts/start.js`)
})

// The image and `npm start` run Node with the same V8 flags: they are read from the Dockerfile's CMD.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'tap'
import { SHIPPED_NODE_FLAGS } from '../../bench/shipped-process.ts'

const root = join(import.meta.dirname, '../..')

test('npm start passes the V8 flags the image runs with', async t => {
  const semiSpace = (bound: 'min' | 'max') => SHIPPED_NODE_FLAGS.find(flag => flag.startsWith(`--${bound}-semi-space-size=`))?.split('=')[1]
  t.ok(semiSpace('min') !== undefined && semiSpace('min') === semiSpace('max'), `the image fixes the young generation: ${SHIPPED_NODE_FLAGS.join(' ')}`)
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start
  t.equal(start, `node ${SHIPPED_NODE_FLAGS.join(' ')} scripts/start.js`)
})

import t from 'tap'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'

const ROUTES = join(import.meta.dirname, '../../routes')
const HOOKS = /^autohooks\.ts$/
const INDEX = /^index\.ts$/

// Autoload reads only index.ts in a folder that has one and skips the other files there: a route
// file beside an index.ts would silently serve nothing.
t.test('autoload loads every route file: no folder holds index.ts beside other route files', async t => {
  const skipped: string[] = []
  const walk = (dir: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true })
    const files = entries.filter(entry => entry.isFile() && entry.name.endsWith('.ts') && !HOOKS.test(entry.name)).map(entry => entry.name)
    if (files.some(name => INDEX.test(name))) {
      skipped.push(...files.filter(name => !INDEX.test(name)).map(name => join(dir, name).slice(ROUTES.length + 1)))
    }
    for (const entry of entries) if (entry.isDirectory()) walk(join(dir, entry.name))
  }
  walk(ROUTES)
  t.same(skipped, [], 'route files autoload would skip')
})

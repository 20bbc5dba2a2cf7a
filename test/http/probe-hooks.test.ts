import t from 'tap'
import { readFileSync } from 'node:fs'
import type { FastifyInstance } from 'fastify'
import { build } from '../helper.ts'

type Hooks = Record<string, string[]>

/** The documented hooks of the probes: the table under "The way of a request" in docs/architecture.md. */
function documentedProbeHooks (): Map<string, { routes: string[], hooks: Hooks }> {
  const doc = readFileSync(new URL('../../docs/architecture.md', import.meta.url), 'utf8')
  const table = new Map<string, { routes: string[], hooks: Hooks }>()
  for (const [, listener, routes, hooks] of doc.matchAll(/^\| (service|management) \| (.*?) \| (.*?) \|$/gm)) {
    const byKind: Hooks = {}
    for (const [, kind, name] of hooks!.matchAll(/(\w+) `(\w+)`/g)) (byKind[kind!] ??= []).push(name!)
    table.set(listener!, { routes: [...routes!.matchAll(/`([^`]+)`/g)].map(match => match[1]!), hooks: byKind })
  }
  return table
}

/**
 * Each GET route's hooks as `printRoutes({ includeHooks: true })` shows them: the app's own view,
 * global hooks and the route's together. The tree prints one path segment a line, four columns a level.
 */
function getRouteHooks (app: FastifyInstance): Map<string, Hooks> {
  const routes = new Map<string, Hooks>()
  const path: string[] = []
  let current: Hooks | undefined
  for (const line of app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n')) {
    const hook = /• \((\w+)\) (\[.*\])$/.exec(line)
    if (hook !== null) {
      if (current !== undefined) current[hook[1]!] = (JSON.parse(hook[2]!) as string[]).map(name => name.replace(/\(\)$/, ''))
      continue
    }
    const node = /^([│ ]*)[├└]── (.*)$/.exec(line)
    const label = node?.[2] ?? /^[│ ]*(\S.*)$/.exec(line)?.[1]
    if (label === undefined) continue
    const [, segment, methods] = /^(.*?)(?: \(([A-Z, ]+)\).*)?$/.exec(label)!
    if (node !== null) path.splice(node[1]!.length / 4, Infinity, segment!)
    current = methods?.split(', ').includes('GET') === true ? {} : undefined
    if (current !== undefined) routes.set(path.join(''), current)
  }
  return routes
}

t.test('the probes run exactly the documented hooks, on the service port and the management listener', async t => {
  // Shedding, the rate limit and the management listener on, as in production: probes still run none of theirs.
  const app = await build(t, { env: { SHED_MAX_EVENT_LOOP_DELAY_MS: '1000', RATE_LIMIT_MAX: '100', MANAGEMENT_PORT: '0' } })
  const documented = documentedProbeHooks()
  t.same([...documented.keys()], ['service', 'management'], 'the documentation lists both listeners')
  for (const [listener, instance] of [['service', app], ['management', app.management!]] as const) {
    const actual = getRouteHooks(instance)
    const { routes, hooks } = documented.get(listener)!
    t.ok(routes.length > 0)
    for (const route of routes) t.same(actual.get(route), hooks, `${listener} ${route}`)
  }
})

t.test('a business route runs its hooks in the documented order', async t => {
  const app = await build(t, { env: { SHED_MAX_EVENT_LOOP_DELAY_MS: '1000', RATE_LIMIT_MAX: '100' } })
  const hooks = getRouteHooks(app).get('/api/candidatos')
  t.match(hooks, {
    onRequest: ['requireHost', 'refuseVersion', 'shedUnderPressure', 'authenticateBearerHead'],
    preHandler: ['untilServing', 'untilDatabaseReady'],
    onError: ['noteRefusal']
  }, 'version refused, then load shed, then the token verified; the database gates; the full disk noticed')
  t.equal(hooks?.preParsing?.length, 2, 'the rate limit, then the refusal of a bad token')
  t.equal(hooks?.preParsing?.[1], 'answerRefusal')
})

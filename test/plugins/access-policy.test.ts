import t from 'tap'
import type { RouteOptions } from 'fastify'
import { routePolicy } from '../../src/http/policy/route-policy.ts'
import { build } from '../helper.ts'

// The documented public routes (docs/api.md, "Authentication"): everything else needs a token.
const PUBLIC = ['/.well-known/oauth-protected-resource', '/health', '/health/live', '/health/ready', '/health/shallow', '/health/startup', '/ping']

interface Route { method: string, url: string, options: RouteOptions }

function methodsOf (route: RouteOptions): string[] {
  return Array.isArray(route.method) ? route.method : [route.method]
}

t.test('access is deny by default: only the documented routes answer without a token', async t => {
  const routes: Route[] = []
  const app = await build(t, {
    beforeApp: app => app.addHook('onRoute', route => {
      for (const method of methodsOf(route)) routes.push({ method, url: route.url, options: route })
    })
  })
  // Read once every hook ran: the policy is resolved and stored on each route as it is declared.
  const isPublic = (route: Route) => routePolicy(route.options).access !== 'token'
  const publicUrls = [...new Set(routes.filter(isPublic).map(route => route.url))].sort()
  t.same(publicUrls.filter(url => !url.startsWith('/docs')), PUBLIC, 'the public routes outside the docs are exactly the documented list')
  t.ok(publicUrls.some(url => url.startsWith('/docs')), 'the docs are public')
  t.ok(routes.filter(route => route.url.startsWith('/docs')).every(isPublic), 'every docs route is public')

  for (const route of routes.filter(route => isPublic(route) && route.method === 'GET' && !route.url.includes('*'))) {
    const res = await app.inject({ method: 'GET', url: route.url })
    t.not(res.statusCode, 401, `GET ${route.url} answers without a token`)
  }

  const guarded = routes.filter(route => !isPublic(route) && route.method !== 'OPTIONS')
  t.ok(guarded.length > 10, 'the service has guarded routes')
  for (const route of guarded) {
    const url = route.url.replace(/:[A-Za-z]+/g, '1').replace('*', 'x')
    // In a version the route serves: a version it does not serve is refused before the token is looked at.
    const version = (route.options.constraints as { apiVersion?: unknown } | undefined)?.apiVersion
    const res = await app.inject({ method: route.method as 'GET', url, headers: typeof version === 'string' ? { 'x-api-version': version } : {} })
    t.equal(res.statusCode, 401, `${route.method} ${url} without a token`)
    t.match(String(res.headers['www-authenticate']), /^Bearer /, `${route.method} ${url} challenges`)
  }
})

// The layers of docs/architecture.md, checked by `npm run lint:layers`. Imports point down this list:
//
//   entry points: src/server.ts, src/service-process.ts, src/app.ts, src/cli/
//   routes/       autoloaded; they use the plugins' decorators and import no plugin
//   plugins/      one concern each; they import no route file
//   src/ services: auth, health, openapi, versioning, webhooks, logging, ... (and config.ts)
//   src/http/     the HTTP plumbing: problems, conventions, input, transport, route policy, resources
//   src/representations/  what the API and the webhook deliveries render
//   src/storage/  takes its settings as arguments
//   src/domain/   imports nothing of ours
//
// Within the services, src/versioning stands on src/http alone and src/webhooks never uses src/http.
const OURS = '^(src|plugins|routes)/'

/** A rule that fails lint on any import from `from` to `to` (dependency-cruiser's own conditions). */
function forbid (name, comment, from, to) {
  return { name, comment, severity: 'error', from, to }
}

/** A rule that `from` may import nothing of ours beyond `allowed`. */
function only (name, comment, from, allowed) {
  return forbid(name, comment, { path: from }, { path: OURS, pathNot: allowed })
}

module.exports = {
  forbidden: [
    only('domain-imports-nothing', 'src/domain is plain TypeScript: no storage, HTTP or settings.',
      '^src/domain/', '^src/domain/'),
    only('storage-below-services', 'src/storage takes its settings as arguments, never from src/config.ts, and knows nothing of HTTP.',
      '^src/storage/', '^src/(storage|domain)/'),
    only('representations-below-http', 'What the API and the deliveries render imports neither the HTTP plumbing nor webhooks: only the records it renders and the version profiles.',
      '^src/representations/', '^src/(representations|storage|domain)/|^src/versioning/profiles\\.ts$'),
    only('http-below-services', 'src/http is the plumbing the services stand on: it imports no service (versioning, openapi, auth, webhooks, ...).',
      '^src/http/', '^src/(http|representations|storage|domain)/'),
    only('versioning-on-http-only', 'src/versioning stands on src/http alone: the profiles it declares are read by the representations, never the other way.',
      '^src/versioning/', '^src/(versioning|http)/'),
    forbid('domain-without-packages', 'src/domain is plain TypeScript: no package at all, Node\'s own modules aside.',
      { path: '^src/domain/' },
      { dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'] }),
    forbid('storage-without-http-packages', 'src/storage knows nothing of HTTP: no Fastify, no HTTP client.',
      { path: '^src/storage/' },
      { path: '(^|/)node_modules/(fastify|@fastify/|fastify-plugin|undici|find-my-way|light-my-request)' }),
    forbid('webhooks-without-http', 'Deliveries render the shared representations, never the API\'s HTTP answers.',
      { path: '^src/webhooks/' },
      { path: '^src/http/' }),
    forbid('src-below-plugins-and-routes', 'src/ is used by plugins and routes; only the entry points load them (by autoload, not by import).',
      { path: '^src/', pathNot: '^src/(server|service-process|app)\\.ts$|^src/cli/' },
      { path: '^(plugins|routes)/' }),
    forbid('plugins-import-no-route', 'A plugin never imports a route file: what two listeners serve lives in src/.',
      { path: '^plugins/' },
      { path: '^routes/' }),
    forbid('routes-import-no-plugin', 'Routes use the plugins\' decorators, never the plugins\' modules.',
      { path: '^routes/' },
      { path: '^plugins/' }),
    forbid('entry-points-on-top', 'Nothing imports the entry points, except for their types (the options an app is built with).',
      { path: OURS, pathNot: '^src/(server|service-process)\\.ts$|^src/cli/' },
      { path: '^src/(server|service-process|app)\\.ts$|^src/cli/', dependencyTypesNot: ['type-only'] }),
    forbid('no-circular', 'No module reaches itself through its imports; imports of types alone are left out (they are erased).',
      { path: OURS },
      { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } })
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Type imports are seen (and told apart) only before compilation.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' }
  }
}

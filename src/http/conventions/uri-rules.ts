// The URI rules of the interface (docs/api.md, "HTTP conventions"), applied to route paths at start-up.

/** Segments that name a CRUD operation: the method carries the action, never the path (rule 9). */
const CRUD_VERBS = new Set([
  'get', 'set', 'create', 'read', 'update', 'delete', 'remove', 'add', 'insert', 'edit', 'save', 'list', 'fetch', 'new',
  'criar', 'ler', 'obter', 'buscar', 'listar', 'atualizar', 'editar', 'salvar', 'inserir', 'deletar', 'excluir', 'remover', 'apagar'
])

// Lower-case words joined by single hyphens: no upper case (rule 5), no underscore (rule 6),
// no dot, so no file extension (rule 8).
const STATIC_SEGMENT = /^[a-z0-9]+(?:-[a-z0-9]+)*$/

/** Why a route path breaks the URI rules, or undefined when it keeps them. */
export function uriRuleViolation (path: string): string | undefined {
  if (path === '/') return undefined
  if (path.endsWith('/')) return 'a path has no trailing "/" (rule 7)'
  for (const segment of path.split('/').slice(1)) {
    if (segment.startsWith(':') || segment === '*') continue
    if (segment === '') return 'a path has no empty segment'
    if (/[A-Z]/.test(segment)) return `segment "${segment}" has upper case; paths are lower case (rule 5)`
    if (segment.includes('_')) return `segment "${segment}" uses "_"; words are joined with "-" (rule 6)`
    if (segment.includes('.')) return `segment "${segment}" looks like a file extension; the media type is in Content-Type (rule 8)`
    if (!STATIC_SEGMENT.test(segment)) return `segment "${segment}" is not lower-case words joined with "-" (rules 5, 6)`
    if (CRUD_VERBS.has(segment)) return `segment "${segment}" is a CRUD verb; the HTTP method carries the action (rule 9)`
  }
  return undefined
}

/** The canonical form of a request path: lower case, no trailing "/", no file extension. */
export function canonicalPath (path: string): string {
  let canonical = path.toLowerCase().replace(/\/+$/, '')
  canonical = canonical.replace(/\.[a-z0-9]{1,8}$/, '')
  return canonical === '' ? '/' : canonical
}

/**
 * The path and query of a request target, as they may appear in a redirect on this origin: the
 * absolute form's scheme and authority are dropped (RFC 9112 section 3.2.2) and leading slashes
 * collapsed, so a Location built from them never names another host.
 */
export function originTarget (target: string): { path: string, query: string } {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target)
  const rest = (authority === null ? target : target.slice(authority[0].length)).replace(/^\/*/, '/')
  const query = rest.indexOf('?')
  return query === -1 ? { path: rest, query: '' } : { path: rest.slice(0, query), query: rest.slice(query) }
}

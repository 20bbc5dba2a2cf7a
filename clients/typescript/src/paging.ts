// Every page of a collection, by the service's own `next` links: offset paging in 1.0, cursors in
// 2.0, the event feed. The client never builds a page's URL; it follows the one it was given.
import type { Client, MaybeOptionalInit } from 'openapi-fetch'
import { ApiProblemError, type Problem } from './errors.ts'
import { callInfo } from './retry.ts'

/** The paths whose GET answers a page: `{ items, links }`. */
export type CollectionPath<Paths> = {
  [P in keyof Paths]: Paths[P] extends { get: { responses: { 200: { content: { 'application/json': { items: unknown[], links: unknown[] } } } } } } ? P : never
}[keyof Paths]

/** An item of the collection at `P`. */
export type ItemOf<Paths, P extends keyof Paths> =
  Paths[P] extends { get: { responses: { 200: { content: { 'application/json': { items: Array<infer Item> } } } } } } ? Item : never

/** The options of the first page's GET (path parameters, filters, sort, limit, headers, signal). */
export type PageInit<Paths, P extends keyof Paths> = Paths[P] extends infer Operations extends { get: unknown } ? MaybeOptionalInit<Operations, 'get'> : never

interface Page { items: unknown[], limit: number, links: Array<{ rel: string, href: string }> }
interface PageResult { data?: Page, error?: Problem, response: Response }

/** A GET of a path, or of a link the service gave (resolved against `baseUrl`, sent as it is). */
export type PageReader = (target: { path: string, init?: object } | { href: string, init?: { headers?: unknown, signal?: unknown } }) => Promise<PageResult>

export function pageReader<Paths extends {}> (client: Client<Paths>, baseUrl: string): PageReader {
  const get = client.GET as unknown as (path: string, init?: object) => Promise<PageResult>
  return async target => {
    if ('path' in target) return await get(target.path, target.init)
    const url = new URL(target.href, baseUrl)
    const { headers, signal } = target.init ?? {}
    return await get(url.pathname + url.search, { baseUrl: url.origin, ...(headers !== undefined && { headers }), ...(signal !== undefined && { signal }) })
  }
}

/** The page of a result, or the problem it answered, thrown. */
export function pageOf (result: PageResult): Page {
  if (result.data !== undefined) return result.data
  const info = callInfo(result.response)
  const problem = typeof result.error === 'object' && result.error !== null
    ? result.error
    : { type: 'about:blank', title: result.response.statusText, status: result.response.status }
  throw new ApiProblemError(problem, info.attempts, info.requestId, info.retryable)
}

export function linkOf (page: Page, rel: 'self' | 'next'): string | undefined {
  return page.links.find(link => link.rel === rel)?.href
}

export type Paginate<Paths> = <P extends CollectionPath<Paths>>(path: P, init?: PageInit<Paths, P>) => AsyncGenerator<ItemOf<Paths, P>, void, undefined>

/** `for await (const item of paginate(path, init))`: every item, page after page, until there is no `next`. */
export function paginator<Paths> (read: PageReader): Paginate<Paths> {
  return async function * <P extends CollectionPath<Paths>>(path: P, init?: PageInit<Paths, P>) {
    let page = pageOf(await read({ path: path as string, ...(init !== undefined && { init }) }))
    for (;;) {
      yield * page.items as Array<ItemOf<Paths, P>>
      const next = linkOf(page, 'next')
      // The feed always links a next page: an empty one is its end for now.
      if (next === undefined || page.items.length === 0) return
      page = pageOf(await read({ href: next, ...(init !== undefined && { init: init as object }) }))
    }
  }
}

// A service process's API as a client calls it: over HTTP, with a token of the given scopes.
import assert from 'node:assert/strict'
import { mintToken } from '../helper.ts'

export interface Created { id: string, segredo?: string }

/** Sends to `/api/v2{path}` of the server at `url`; an answer other than 2xx fails the test. */
export type Send = <T = Created>(server: { url: string }, path: string, body?: object, method?: 'GET' | 'POST' | 'PATCH' | 'DELETE') => Promise<T>

export async function serviceApi (scope: string): Promise<Send> {
  const authorization = `Bearer ${await mintToken({ scope })}`
  return async <T>(server: { url: string }, path: string, body?: object, method = 'POST'): Promise<T> => {
    const res = await fetch(`${server.url}/api/v2${path}`, {
      method,
      headers: { authorization, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) })
    })
    const text = await res.text()
    assert.ok(res.ok, `${method} ${path}: ${res.status} ${text}`)
    return (text === '' ? {} : JSON.parse(text)) as T
  }
}

export interface FeedEvent { id: number, tipo: string, sujeito: { tipo: string, id: string } }

/** Every event in the feed (`eventos:read`), oldest first, read page by page as a poller follows `next`. */
export async function feedEvents (send: Send, server: { url: string }): Promise<FeedEvent[]> {
  const events: FeedEvent[] = []
  for (let cursor = ''; ;) {
    const page = await send<{ items: FeedEvent[], limit: number, links: Array<{ rel: string, href: string }> }>(server, `/eventos?limit=100${cursor}`, undefined, 'GET')
    events.push(...page.items)
    if (page.items.length < page.limit) return events
    const next = new URL(page.links.find(link => link.rel === 'next')!.href, server.url)
    cursor = `&cursor=${encodeURIComponent(next.searchParams.get('cursor')!)}`
  }
}

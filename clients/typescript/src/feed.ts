// The event feed, followed: events in order from a stored position, each with the position to store
// once it is handled, so a follower that stops and starts again resumes at the next one. The position
// is the service's own link (the page the event is on, and how many of its events are handled), never
// a cursor made by the client.
import { ApiRequestError } from './errors.ts'
import { linkOf, pageOf, type CollectionPath, type ItemOf, type PageInit, type PageReader } from './paging.ts'
import { callInfo, retryAfterMs } from './retry.ts'

export const FEED_IDLE_MS = 1000

export interface FollowOptions<Init> {
  /** A position handed back with an event and stored; the feed's beginning when left out. */
  from?: string | undefined
  /** The first page's options (`tipo`, `sujeitoId`, `limit`) when starting from the beginning; a position keeps its own. */
  init?: Init | undefined
  /** The wait before polling again once the feed has nothing new, in ms (Retry-After may ask for longer). Default 1000. */
  idleMs?: number | undefined
  /** Ends the iteration, at once when it is waiting. */
  signal?: AbortSignal | undefined
}

export interface FeedEntry<Event> {
  event: Event
  /** Store it once the event is handled; pass it back as `from` to resume after this event. */
  position: string
}

/** Paths of an event feed: `/api/v2/eventos`. */
export type FeedPath<Paths> = Extract<CollectionPath<Paths>, `${string}/eventos`>

export type FollowFeed<Paths> = <P extends FeedPath<Paths>>(path: P, options?: FollowOptions<PageInit<Paths, P>>) =>
AsyncGenerator<FeedEntry<ItemOf<Paths, P>>, void, undefined>

/** A position: the link of a page, and how many of its events are handled (after a `#`, when any). */
function parsePosition (position: string): { href: string, handled: number } {
  const mark = position.lastIndexOf('#')
  return mark === -1 ? { href: position, handled: 0 } : { href: position.slice(0, mark), handled: Number(position.slice(mark + 1)) }
}

/** Resolves after `ms`, or false at once when `signal` stops the follower. */
async function pause (ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted === true) return false
  return await new Promise(resolve => {
    const stop = () => { clearTimeout(timer); resolve(false) }
    const timer = setTimeout(() => { signal?.removeEventListener('abort', stop); resolve(true) }, ms)
    signal?.addEventListener('abort', stop, { once: true })
  })
}

export function feedFollower<Paths> (read: PageReader): FollowFeed<Paths> {
  return async function * <P extends FeedPath<Paths>>(path: P, options: FollowOptions<PageInit<Paths, P>> = {}) {
    const idleMs = options.idleMs ?? FEED_IDLE_MS
    const signal = options.signal
    const stopped = () => signal?.aborted === true
    let at = options.from === undefined ? undefined : parsePosition(options.from)
    while (!stopped()) {
      let result
      try {
        result = at === undefined
          ? await read({ path: path as string, init: { ...(options.init as object | undefined), ...(signal !== undefined && { signal }) } })
          : await read({ href: at.href, ...(signal !== undefined && { init: { signal } }) })
      } catch (error) {
        if (stopped()) return
        if (error instanceof ApiRequestError && error.retryable) { if (await pause(idleMs, signal)) continue; return }
        throw error
      }
      // Still refused after the client's retries (429, 503): wait as the answer says, then poll again.
      if (result.data === undefined && callInfo(result.response).retryable) {
        if (await pause(Math.max(idleMs, retryAfterMs(result.response)), signal)) continue
        return
      }
      const page = pageOf(result)
      const self = linkOf(page, 'self') ?? at?.href ?? ''
      const next = linkOf(page, 'next') ?? self
      const items = page.items as Array<ItemOf<Paths, P>>
      for (let i = at?.handled ?? 0; i < items.length; i++) {
        yield { event: items[i]!, position: i === items.length - 1 ? next : `${self}#${i + 1}` }
      }
      at = { href: next, handled: 0 }
      // A full page: more are waiting. A short one: this is the end for now.
      if (items.length < page.limit && !(await pause(idleMs, signal))) return
    }
  }
}

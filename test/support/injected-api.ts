// An app's API as a test calls it in process (app.inject), with a token of the given scopes.
import assert from 'node:assert/strict'
import type { FastifyInstance } from 'fastify'
import { bearer } from '../helper.ts'

export interface InjectedApi {
  /** Sends the request; an answer other than 2xx fails the test. */
  send: <T = { id: string }>(method: 'POST' | 'PATCH' | 'GET', url: string, payload?: object) => Promise<T>
}

export async function injectedApi (app: FastifyInstance, scope: string): Promise<InjectedApi> {
  const headers = await bearer({ scope })
  return {
    async send (method, url, payload) {
      const res = await app.inject({ method, url, headers, ...(payload !== undefined && { payload }) })
      assert.ok(res.statusCode < 300, `${method} ${url}: ${res.statusCode} ${res.body}`)
      return res.json()
    }
  }
}

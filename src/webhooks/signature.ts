// The Standard Webhooks signature: HMAC-SHA256 over `id.timestamp.body` with the subscription's key.
import { createHmac, type KeyObject } from 'node:crypto'

export interface SignedHeaders {
  'webhook-id': string
  'webhook-timestamp': string
  'webhook-signature': string
}

/** The three headers of a delivery, `key` from signingKey; `timestamp` is in seconds since the epoch. */
export function signedHeaders (key: KeyObject, id: string, timestamp: number, body: string): SignedHeaders {
  const signature = createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` }
}

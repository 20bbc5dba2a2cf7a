// The Standard Webhooks signature: HMAC-SHA256 over `id.timestamp.body` with the subscription's key.
import { createHmac } from 'node:crypto'
import { signingKey } from './signing-secret.js'

export interface SignedHeaders {
  'webhook-id': string
  'webhook-timestamp': string
  'webhook-signature': string
}

/** The three headers of a delivery; `timestamp` is in seconds since the epoch. */
export function signedHeaders (secret: string, id: string, timestamp: number, body: string): SignedHeaders {
  const signature = createHmac('sha256', signingKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': `v1,${signature}` }
}

// A service process's /metrics as a scraper reads it: over HTTP, with a metrics:read token.
import assert from 'node:assert/strict'
import { mintToken } from '../helper.ts'

/** The sum of a metric's samples whose labels include `labels`; 0 when it has none. */
export type Metric = (name: string, labels?: Record<string, string>) => number

/** Scrapes the server at `url` once. */
export async function scrapeMetrics (server: { url: string }): Promise<Metric> {
  const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${await mintToken({ scope: 'metrics:read' })}` } })
  const text = await res.text()
  assert.equal(res.status, 200, `GET /metrics: ${res.status} ${text}`)
  const samples = text.split('\n').flatMap(line => {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (match === null) return []
    const labels = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map(([, key, value]) => [key, value]))
    return [{ name: match[1]!, labels, value: Number(match[3]) }]
  })
  return (name, labels = {}) => samples
    .filter(sample => sample.name === name && Object.entries(labels).every(([key, value]) => sample.labels[key] === value))
    .reduce((sum, sample) => sum + sample.value, 0)
}

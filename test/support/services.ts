import { randomBytes } from 'node:crypto'
import { Redis } from 'ioredis'
import pg from 'pg'
import type { Test } from 'tap'

/**
 * Whether a real service is configured for this run. Outside CI a missing one skips the test with a
 * visible notice; under CI=true it fails the run, so a green CI always means the service was used.
 */
export function requireService (t: Pick<Test, 'skip' | 'fail' | 'comment'>, variable: string): string | undefined {
  const url = process.env[variable]
  if (url !== undefined && url !== '') return url
  if (process.env.CI === 'true') {
    t.fail(`${variable} is not set: CI must run this test against the real service`)
  } else {
    t.comment(`NOTICE: ${variable} is not set; skipping the tests that need it`)
    t.skip(`${variable} is not set`, () => {})
  }
  return undefined
}

/** A new, empty PostgreSQL database for one test, dropped when it ends; undefined when skipped. */
export async function freshPostgresDatabase (t: Test): Promise<string | undefined> {
  const serverUrl = requireService(t, 'TEST_DATABASE_URL')
  if (serverUrl === undefined) return undefined
  const name = `test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  t.teardown(async () => {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
    await client.end()
  })
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** Deletes the keys matching `pattern` on the Redis at `url`: a test's own keys on the shared Redis. */
export async function deleteRedisKeys (url: string, pattern: string): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 })
  try {
    await redis.connect()
    for await (const keys of redis.scanStream({ match: pattern, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.del(...keys)
    }
  } finally {
    redis.disconnect()
  }
}

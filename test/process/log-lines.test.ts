import t from 'tap'
import { bearer } from '../helper.ts'
import { duplicateKeys } from '../support/duplicate-keys.ts'
import { startServerProcess, untilReady } from '../support/server-process.ts'

t.test('the duplicate-key finder', async t => {
  t.same(duplicateKeys('{"a":1,"b":{"a":2,"c":[{"d":1},{"d":2}]},"e":"{\\"a\\":1,\\"a\\":2}"}'), [], 'the same key in other objects, or inside a string, is no duplicate')
  t.same(duplicateKeys('{"pid":1,"msg":"x","pid":2}'), ['pid'])
  t.same(duplicateKeys('{"err":{"code":"A","code":"B"}}'), ['code'])
})

t.test('every line the service writes, from start to shutdown, is a JSON object with each key once', async t => {
  const server = await startServerProcess(t, { LOG_LEVEL: 'trace' })
  await untilReady(server.url)
  const auth = await bearer({ scope: 'candidatos:read candidatos:write vagas:read health:read' })
  const requests: Array<[string, RequestInit]> = [
    ['/ping', {}],
    ['/api/v1/candidatos', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ nome: 'Lia', email: 'lia@example.com' }) }],
    ['/api/v1/candidatos', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"nome":' }],
    ['/api/v1/candidatos/00000000-0000-4000-8000-000000000000', { headers: auth }],
    ['/api/v1/vagas', { headers: { authorization: 'Bearer forged.token.here' } }],
    ['/health/deep', { headers: auth }],
    ['/nothing-here', {}]
  ]
  for (const [path, init] of requests) await (await fetch(`${server.url}${path}`, init)).arrayBuffer()
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0)
  const lines = server.output().split('\n').filter(line => line !== '')
  t.ok(lines.length >= 10, `${lines.length} lines`)
  for (const line of lines) {
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      t.fail(`not JSON: ${line}`)
      continue
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) t.fail(`not an object: ${line}`)
    const duplicates = duplicateKeys(line)
    if (duplicates.length > 0) t.fail(`${duplicates.join(', ')} twice in ${line}`)
  }
})

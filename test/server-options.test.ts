import t from 'tap'
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import app from '../src/app.ts'
import { testConfig } from './helper.ts'
import { serverOptions } from '../src/server-options.ts'

/** The app with the production log options, writing its JSON lines into an array. */
async function buildLogged (t: { teardown: (fn: () => unknown) => void }, logLevel = 'info'): Promise<{ app: ReturnType<typeof Fastify>, lines: Array<Record<string, unknown>> }> {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, callback) {
      for (const line of chunk.toString().split('\n')) if (line !== '') lines.push(JSON.parse(line))
      callback()
    }
  })
  const config = testConfig({ LOG_LEVEL: logLevel })
  const options = serverOptions(config)
  const fastify = Fastify({ ...options, logger: { ...(options.logger as object), stream } })
  t.teardown(() => fastify.close())
  await fastify.register(fp(app), { config })
  // Public like /ping: these routes are about logging, not access.
  await fastify.register(async scope => {
    // Like /ping: its own quieter level; it fails on demand to show that errors still reach the log.
    scope.get('/quiet-probe', { logLevel: 'warn', config: { public: true } }, async request => {
      if ((request.query as Record<string, string>).fail === 'yes') throw new Error('probe failed')
      return 'ok'
    })
    // A handler that logs with the request's logger, beside one that logs nothing of its own.
    scope.get('/chatty', { config: { public: true } }, async request => {
      request.log.info('working')
      return 'ok'
    })
    scope.get('/silent', { config: { public: true } }, async () => 'ok')
  })
  await fastify.ready()
  return { app: fastify, lines }
}

t.test('a route with its own log level writes no line per request, only its errors', async t => {
  const { app, lines } = await buildLogged(t)
  for (let i = 0; i < 3; i++) t.equal((await app.inject({ method: 'GET', url: '/ping' })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/quiet-probe' })).statusCode, 200)
  t.same(lines.filter(line => line.reqId !== undefined), [], 'no request line for /ping or the quiet route')

  const failed = await app.inject({ method: 'GET', url: '/quiet-probe?fail=yes' })
  t.equal(failed.statusCode, 500)
  const errors = lines.filter(line => line.level === 50)
  t.equal(errors.length >= 1, true, 'the failure is logged')
  t.equal(errors[0]?.reqId, failed.headers['x-request-id'], 'with the request id')
  t.equal(lines.some(line => line.level === 30 && line.reqId === failed.headers['x-request-id']), false, 'and nothing below warn')
})

t.test('other routes keep their access lines at the server level, with the request id', async t => {
  const { app, lines } = await buildLogged(t)
  const res = await app.inject({ method: 'GET', url: '/nothing-here', headers: { 'x-request-id': 'trace-42' } })
  t.equal(res.statusCode, 404)
  const mine = lines.filter(line => line.reqId === 'trace-42')
  t.same(mine.map(line => line.msg), ['request refused', 'request completed'], 'one access line, at the end')
  t.match(mine[1], { level: 30, req: { method: 'GET', url: '/nothing-here' }, res: { statusCode: 404 }, responseTime: Number })
})

t.test('the access line has the same fields whether or not the handler logged, the token masked', async t => {
  const { app, lines } = await buildLogged(t)
  const chatty = await app.inject({ method: 'GET', url: '/chatty', headers: { 'x-request-id': 'chatty' } })
  const silent = await app.inject({ method: 'GET', url: '/silent?access_token=s3cr3t&x=1', headers: { 'x-request-id': 'silent' } })
  t.equal(chatty.statusCode, 200)
  t.equal(silent.statusCode, 200)
  const [chattyLine] = lines.filter(line => line.reqId === 'chatty' && line.msg === 'request completed')
  const [silentLine] = lines.filter(line => line.reqId === 'silent')
  t.ok(chattyLine !== undefined && silentLine !== undefined, 'both requests wrote an access line')
  t.same(Object.keys(silentLine!), ['level', 'time', 'pid', 'hostname', 'reqId', 'req', 'res', 'responseTime', 'msg'], 'the access line fields')
  t.same(Object.keys(silentLine!), Object.keys(chattyLine!), 'the same fields in the same order')
  for (const field of ['level', 'pid', 'hostname', 'msg', 'res']) t.same(silentLine![field], chattyLine![field], field)
  t.same(silentLine!.req, { ...(chattyLine!.req as object), url: '/silent?access_token=[Redacted]&x=1' }, 'the same request fields, the token masked')
  t.equal(JSON.stringify(lines).includes('s3cr3t'), false, 'the token is in no line')
  t.equal(typeof silentLine!.time, 'number')
  t.equal(typeof silentLine!.responseTime, 'number')
})

t.test('above info the server writes no access line', async t => {
  const { app, lines } = await buildLogged(t, 'warn')
  t.equal((await app.inject({ method: 'GET', url: '/silent' })).statusCode, 200)
  t.equal((await app.inject({ method: 'GET', url: '/chatty' })).statusCode, 200)
  t.same(lines.filter(line => line.reqId !== undefined), [])
})

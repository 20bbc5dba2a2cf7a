import t from 'tap'
import { Writable } from 'node:stream'
import Fastify from 'fastify'
import { createChildLoggerFactory } from '../../src/logging/request-logger.js'

function capture (level: string) {
  const lines: Array<Record<string, unknown>> = []
  const stream = new Writable({
    write (chunk: Buffer, _encoding, callback) {
      lines.push(JSON.parse(chunk.toString()))
      callback()
    }
  })
  // Fastify's own logger (pino), as the server builds it.
  return { logger: Fastify({ logger: { level, stream } }).log, lines }
}

t.test('a route level above the server level writes only at or above it, with the bindings', async t => {
  const { logger, lines } = capture('info')
  const child = createChildLoggerFactory()(logger, { reqId: 'r-1' }, { level: 'warn' })
  t.equal(child.level, 'warn')
  child.info('hidden')
  child.debug('hidden')
  child.warn('shown')
  child.error({ code: 'E' }, 'also shown')
  t.same(lines.map(line => [line.msg, line.reqId, line.level]), [['shown', 'r-1', 40], ['also shown', 'r-1', 50]])
  t.equal(lines[1]?.code, 'E')
})

t.test('changing the level of a request logger takes effect', async t => {
  const { logger, lines } = capture('info')
  const child = createChildLoggerFactory()(logger, { reqId: 'r-2' }, { level: 'error' })
  child.level = 'debug'
  child.debug('now shown')
  t.same(lines.map(line => [line.msg, line.reqId]), [['now shown', 'r-2']])
})

t.test('a grandchild keeps the request bindings and the route level', async t => {
  const { logger, lines } = capture('info')
  const child = createChildLoggerFactory()(logger, { reqId: 'r-3' }, { level: 'warn' }).child({ part: 'db' })
  child.info('hidden')
  child.warn('shown')
  t.same(lines.map(line => [line.msg, line.reqId, line.part]), [['shown', 'r-3', 'db']])
})

t.test('a request logger at the server level writes at its level, with the bindings', async t => {
  const { logger, lines } = capture('info')
  const child = createChildLoggerFactory()(logger, { reqId: 'r-4' }, {})
  t.equal(child.level, 'info')
  child.debug('hidden')
  child.info('shown')
  child.child({ part: 'db' }).warn('also shown')
  t.same(lines.map(line => [line.msg, line.reqId, line.part]), [['shown', 'r-4', undefined], ['also shown', 'r-4', 'db']])
})

t.test('a request logger follows a later change of the server level', async t => {
  const { logger, lines } = capture('info')
  const child = createChildLoggerFactory()(logger, { reqId: 'r-5' }, {})
  logger.level = 'debug'
  child.debug('now shown')
  t.same(lines.map(line => [line.msg, line.reqId]), [['now shown', 'r-5']])
})

import t, { type Test } from 'tap'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { LogWriter } from '../../src/logging/log-writer.js'

function logFile (t: Test): { path: string, fd: number } {
  const path = join(t.testdir(), 'out.log')
  const fd = openSync(path, 'w')
  t.teardown(() => { try { closeSync(fd) } catch {} })
  return { path, fd }
}

function linesOf (path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8').split('\n').filter(line => line !== '').map(line => JSON.parse(line) as Record<string, unknown>)
}

async function flushed (writer: LogWriter): Promise<void> {
  await new Promise<void>(resolve => writer.flush(() => resolve()))
}

t.test('bursts of lines reach the file whole and in order, non-ASCII included', async t => {
  const { path, fd } = logFile(t)
  const writer = new LogWriter(fd)
  let n = 0
  for (let burst = 0; burst < 20; burst++) {
    for (let i = 0; i < 500; i++) writer.write(JSON.stringify({ n: n++, msg: 'candidato João — ✓' }) + '\n')
    await new Promise(resolve => setImmediate(resolve))
  }
  await flushed(writer)
  const lines = linesOf(path)
  t.equal(lines.length, 10_000)
  t.ok(lines.every((line, i) => line.n === i && line.msg === 'candidato João — ✓'), 'every line, in the order written')
})

t.test('past the pending limit lines are dropped, counted and reported in one line', async t => {
  const { path, fd } = logFile(t)
  const line = JSON.stringify({ msg: 'x'.repeat(89) }) + '\n' // 100 characters
  const writer = new LogWriter(fd, { maxPendingBytes: 1000 })
  t.equal(writer.write(line), true, 'the first line starts a write')
  // While that write is in flight, ten lines fit in the limit and five more do not.
  const accepted = Array.from({ length: 15 }, () => writer.write(line))
  t.same(accepted, [...Array(10).fill(true), ...Array(5).fill(false)])
  await flushed(writer)
  const lines = linesOf(path)
  t.equal(lines.filter(entry => entry.msg === 'x'.repeat(89)).length, 11, 'every accepted line is written')
  t.match(lines.at(-1), { level: 40, msg: 'log lines dropped: stdout did not keep up', dropped: 5 })
})

t.test('flushSync writes the waiting lines at once, for a process that is exiting', async t => {
  const { path, fd } = logFile(t)
  const writer = new LogWriter(fd)
  for (let i = 0; i < 100; i++) writer.write(JSON.stringify({ n: i }) + '\n')
  writer.flushSync()
  // The first write may still be in flight; every line behind it is already in the file.
  const now = linesOf(path).map(line => line.n)
  t.ok(now.length >= 99, `the waiting lines are written synchronously (${now.length} of 100)`)
  await flushed(writer)
  t.same(linesOf(path).map(line => line.n).sort((a, b) => Number(a) - Number(b)), Array.from({ length: 100 }, (_, i) => i))
})

t.test('a file descriptor that fails stops the logging, not the process', async t => {
  const { fd } = logFile(t)
  closeSync(fd)
  const writer = new LogWriter(fd)
  t.equal(writer.write('{"msg":"lost"}\n'), true, 'the failure is only known once the write runs')
  await flushed(writer)
  t.equal(writer.write('{"msg":"after"}\n'), false, 'later lines are refused')
  t.doesNotThrow(() => writer.flushSync())
})

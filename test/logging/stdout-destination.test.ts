import t, { type Test } from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { openSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import pino from 'pino'
import { logDestination, reportDroppedLines } from '../../src/logging/stdout-destination.ts'
import { eventually } from '../support/eventually.ts'

function linesOf (path: string): Array<Record<string, unknown>> {
  return readFileSync(path, 'utf8').split('\n').filter(line => line !== '').map(line => JSON.parse(line) as Record<string, unknown>)
}

function destinationIn (t: Test, maxLength?: number) {
  const path = join(t.testdir(), 'out.log')
  const destination = logDestination({ dest: path, maxLength })
  t.teardown(async () => { await new Promise(resolve => { destination.once('close', resolve); destination.end() }) })
  return { path, destination }
}

t.test('bursts of lines reach the file whole and in order, non-ASCII included', async t => {
  const { path, destination } = destinationIn(t)
  const log = pino(destination)
  let n = 0
  for (let burst = 0; burst < 20; burst++) {
    for (let i = 0; i < 500; i++) log.info({ n: n++ }, 'candidato João — ✓')
    await new Promise(resolve => setImmediate(resolve))
  }
  const lines = await eventually(() => {
    const written = linesOf(path)
    if (written.length < 10_000) throw new Error(`${written.length} lines so far`)
    return written
  })
  t.equal(lines.length, 10_000)
  t.ok(lines.every((line, i) => line.n === i && line.msg === 'candidato João — ✓'), 'every line, in the order written')
})

t.test('past the queue limit lines are dropped, counted and reported in one warning', async t => {
  const { path, destination } = destinationIn(t, 1000)
  reportDroppedLines(destination, pino(destination), 50)
  const line = JSON.stringify({ msg: 'x'.repeat(89) }) + '\n' // 100 bytes
  // The first line starts a write; the rest arrive while it is in flight, more than the limit holds.
  for (let i = 0; i < 16; i++) destination.write(line)
  const report = await eventually(() => {
    const found = linesOf(path).find(entry => entry.msg === 'log lines dropped: stdout did not keep up')
    if (found === undefined) throw new Error('no report yet')
    return found
  })
  const written = linesOf(path).filter(entry => entry.msg === 'x'.repeat(89)).length
  t.ok(written >= 10 && written < 16, `the queue held what fits in it (${written} lines written)`)
  t.match(report, { level: 40, dropped: 16 - written }, 'every line not written is counted')
  t.equal(linesOf(path).filter(entry => entry.dropped !== undefined).length, 1, 'in one warning')
})

t.test('a write that fails for good (a full disk) stops the logging, not the process, and exit does not wait on it', async t => {
  const script = join(t.testdir(), 'full-disk.ts')
  writeFileSync(script, `import pino from 'pino'
import { logDestination } from ${JSON.stringify(join(import.meta.dirname, '../../src/logging/stdout-destination.ts'))}
const destination = logDestination()
const log = pino(destination)
// Once the failed write is reported (the destination's own listener runs first), log again and exit.
destination.once('error', () => setImmediate(() => { log.info('after the failure'); process.stderr.write('still serving\\n'); process.exit(0) }))
for (let i = 0; i < 5; i++) log.info({ i }, 'line')
`)
  const child = spawn(process.execPath, [script], { cwd: join(import.meta.dirname, '../..'), stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'] })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => { stderr += chunk.toString() })
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const [code, signal] = await once(child, 'exit') as [number | null, string | null]
  clearTimeout(timer)
  t.equal(signal, null, 'not killed: exiting did not hang on the failed writes')
  t.equal(code, 0, stderr)
  t.match(stderr, /still serving/)
})

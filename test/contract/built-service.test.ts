import t from 'tap'
import { execFileSync } from 'node:child_process'
import { join } from 'node:path'
import { eventually } from '../support/eventually.ts'
import { otlpReceiver } from '../support/otlp-receiver.ts'
import { freePorts } from '../support/closed-port.ts'
import { startBuiltServerProcess, untilReady } from '../support/server-process.ts'
import { runClientFlows } from './run-flows.ts'

// The Node.js the built service runs on: this test's own unless SERVICE_NODE names another binary
// (CI runs this file again with the next LTS line's).
const node = process.env.SERVICE_NODE ?? process.execPath
const version = execFileSync(node, ['--version']).toString().trim()
const SERVER_SPAN = 2
const CLIENT_SPAN = 3

t.test(`the built service on Node.js ${version}, started as the image starts it with tracing on, serves the client flows and says nothing but its log`, async t => {
  // Compiled before it starts, as the image is: the start then prints the service's log alone.
  execFileSync(process.execPath, ['scripts/compile.js'], { cwd: join(import.meta.dirname, '../..'), stdio: 'inherit' })
  const collector = await otlpReceiver(t)
  const [managementPort] = await freePorts(1)
  const server = await startBuiltServerProcess(t, node, {
    MANAGEMENT_PORT: String(managementPort),
    OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_BSP_SCHEDULE_DELAY: '200'
  })
  await untilReady(server.url, 90_000)

  await runClientFlows(t, server.url)

  // What runs, as the management listener tells it: the commit the build was made from, this Node.js.
  const info = await (await fetch(`http://127.0.0.1:${managementPort}/info`)).json()
  const commit = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8' }).trim()
  t.match(info, { commit, runtime: { name: 'node', version } }, '/info names the build and the runtime')

  // The request spans, and under them the database's: the loader hook patched pg's ESM import.
  await eventually(() => {
    if (!collector.spans.some(span => span.kind === SERVER_SPAN && span.serviceName === 'recrutamento-api')) throw new Error('no request span exported yet')
    if (!collector.spans.some(span => span.kind === CLIENT_SPAN && span.attributes['db.system.name'] === 'postgresql')) throw new Error('no database span exported yet')
  }, { timeout: 30_000 })
  server.child.kill('SIGTERM')
  t.equal(await server.exited, 0, 'a clean exit')
  // Every line the process wrote is a JSON log line: no deprecation or experimental warning from
  // Node.js, no stray output from a dependency.
  const strayLines = server.output().split('\n').filter(line => line !== '' && !line.startsWith('{'))
  t.same(strayLines, [], 'only JSON log lines')
})

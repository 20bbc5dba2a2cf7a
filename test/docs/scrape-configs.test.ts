// The Prometheus scrape configurations in docs/operations.md, as an operator would paste them: each
// passes `promtool check config`, and a real Prometheus scraping with it finds the target up.
import t from 'tap'
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { build, mintToken } from '../helper.ts'
import { freePorts } from '../support/closed-port.ts'
import { eventually } from '../support/eventually.ts'

const doc = readFileSync(join(import.meta.dirname, '../../docs/operations.md'), 'utf8')

/** The YAML block that follows `<!-- scrape-config: name -->` in the doc. */
function scrapeConfig (name: string): string {
  const found = new RegExp(`<!-- scrape-config: ${name} -->\\n\`\`\`yaml\\n([\\s\\S]*?)\`\`\``).exec(doc)
  assert.ok(found?.[1] !== undefined, `docs/operations.md has the ${name} scrape configuration`)
  return found[1]
}

function installed (command: string): boolean {
  return spawnSync(command, ['--version']).status === 0
}

interface PrometheusTarget { health: string, lastError: string }

/** Runs Prometheus with the configuration until its one target has been scraped; the target's state. */
async function scrapedTarget (t: { teardown: (fn: () => unknown) => void }, dir: string, config: string): Promise<PrometheusTarget> {
  const [port] = await freePorts(1)
  const file = join(dir, `prometheus-${port}.yml`)
  // The doc's configuration leaves the interval at Prometheus' default (a minute); the test does not wait that long.
  writeFileSync(file, `global:\n  scrape_interval: 1s\n${config}`)
  const prometheus = spawn('prometheus', [`--config.file=${file}`, `--storage.tsdb.path=${join(dir, `data-${port}`)}`, `--web.listen-address=127.0.0.1:${port}`], { stdio: 'ignore' })
  t.teardown(async () => {
    if (prometheus.exitCode !== null) return
    prometheus.kill('SIGTERM')
    await once(prometheus, 'exit')
  })
  let target: PrometheusTarget | undefined
  await eventually(async () => {
    const answer = await fetch(`http://127.0.0.1:${port}/api/v1/targets`)
    const body = await answer.json() as { data: { activeTargets: Array<PrometheusTarget & { lastScrape: string }> } }
    const [active] = body.data.activeTargets
    assert.ok(active !== undefined && !active.lastScrape.startsWith('0001'), 'not scraped yet')
    target = active
  }, { timeout: 60_000, interval: 250 })
  return target!
}

t.test('the documented scrape configurations pass promtool and scrape a running service, by management port and by token', async t => {
  if (!installed('promtool') || !installed('prometheus')) {
    if (process.env.CI === 'true') t.fail('Prometheus is not installed: CI must check the scrape configurations')
    else t.comment('NOTICE: Prometheus is not installed (Debian package prometheus); skipping')
    return
  }
  const app = await build(t, { env: { MANAGEMENT_PORT: '0' } })
  await app.listen({ port: 0, host: '127.0.0.1' })
  const servicePort = (app.server.address() as AddressInfo).port
  const managementPort = (app.management!.server.address() as AddressInfo).port

  const dir = mkdtempSync(join(tmpdir(), 'recrutamento-scrape-'))
  t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
  const tokenFile = join(dir, 'recrutamento-api.token')
  writeFileSync(tokenFile, await mintToken({ scope: 'metrics:read' }))

  const configs = {
    management: scrapeConfig('management').replace('recrutamento-api:8081', `127.0.0.1:${managementPort}`),
    token: scrapeConfig('token').replace('recrutamento-api:3000', `127.0.0.1:${servicePort}`).replace('/etc/prometheus/recrutamento-api.token', tokenFile)
  }
  for (const [name, config] of Object.entries(configs)) {
    const file = join(dir, `${name}.yml`)
    writeFileSync(file, config)
    const check = spawnSync('promtool', ['check', 'config', file], { encoding: 'utf8' })
    t.equal(check.status, 0, `promtool check config (${name}): ${check.stdout}${check.stderr}`)
  }

  const [management, token] = await Promise.all([scrapedTarget(t, dir, configs.management), scrapedTarget(t, dir, configs.token)])
  t.match(management, { health: 'up', lastError: '' }, 'through the management listener')
  t.match(token, { health: 'up', lastError: '' }, 'through the service port with the token file')

  // Without the token, the service's port refuses the scrape: the token is what made it work.
  writeFileSync(tokenFile, 'not-a-token')
  const refused = await scrapedTarget(t, dir, configs.token)
  t.match(refused, { health: 'down', lastError: /401/ })
})

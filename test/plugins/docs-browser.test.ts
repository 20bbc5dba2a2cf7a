import t from 'tap'
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { build } from '../helper.ts'

const CHROMIUM = '/usr/bin/chromium'

const missing = existsSync(CHROMIUM) ? false : `needs ${CHROMIUM} (apt-get install -y chromium)`
// Under CI a missing browser is a failure, never a silent skip.
if (missing !== false && process.env.CI === 'true') t.fail(`${CHROMIUM} is missing; .ci/run installs the Debian chromium package`)

t.test('the interactive docs render each version\'s operations in headless Chromium', { skip: process.env.CI === 'true' ? false : missing }, async t => {
  const app = await build(t)
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
  })
  t.teardown(() => browser.close())
  const page = await browser.newPage()
  const requested: string[] = []
  page.on('request', request => { requested.push(request.url()) })

  const versions = app.apiVersions.versions
  // The selector lists the versions newest first, then ops.
  const options = [...versions].reverse().map(v => `${v.group}${v.deprecated ? ' (deprecated)' : ''}`).concat('ops')
  for (const { group, version, deprecated } of versions) {
    await page.goto(`${base}/docs/${group}`)
    await page.locator(`[data-path="/api/${group}/user"]`).first().waitFor({ timeout: 20_000 })
    t.equal(await page.locator(`[data-path="/api/${group}/versions"]`).count(), 1, `${group}: /api/${group}/versions is rendered`)
    for (const other of versions.filter(v => v.group !== group)) {
      t.equal(await page.locator(`[data-path^="/api/${other.group}/"]`).count(), 0, `${group}: no ${other.group} operation`)
    }
    const title = await page.locator('.info .title').innerText()
    t.match(title, deprecated ? `${version} (deprecated)` : version, `${group}: title names ${version}`)
    const shownDeprecated = await page.locator('.opblock-deprecated').count()
    const operations = await page.locator('.opblock').count()
    t.ok(operations > 2, `${group}: the operations are rendered`)
    t.equal(shownDeprecated, deprecated ? operations : 0, `${group} operations are shown as ${deprecated ? '' : 'not '}deprecated`)
    const selector = page.locator('.topbar select')
    t.same((await selector.locator('option').allInnerTexts()).map(text => text.trim()), options, `${group}: selector`)
  }

  // Switching the selector loads the ops document.
  await page.locator('.topbar select').selectOption({ label: 'ops' })
  await page.locator('[data-path="/ping"]').first().waitFor({ timeout: 20_000 })
  t.ok(requested.every(url => url.startsWith(base)), 'the docs load nothing from outside the service')
})

import t from 'tap'
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { build } from '../helper.js'

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

  for (const [group, other] of [['v1', 'v2'], ['v2', 'v1']] as const) {
    await page.goto(`${base}/docs/${group}`)
    await page.locator(`[data-path="/api/${group}/user"]`).first().waitFor({ timeout: 20_000 })
    t.equal(await page.locator(`[data-path="/api/${group}/versions"]`).count(), 1, `${group}: /api/${group}/versions is rendered`)
    t.equal(await page.locator(`[data-path^="/api/${other}/"]`).count(), 0, `${group}: no ${other} operation`)
    const title = await page.locator('.info .title').innerText()
    t.match(title, group === 'v1' ? /1\.0.*deprecated/s : /2\.0/, `${group}: title`)
    const deprecated = await page.locator('.opblock-deprecated').count()
    if (group === 'v1') t.equal(deprecated, 2, 'v1 operations are shown as deprecated')
    else t.equal(deprecated, 0, 'v2 operations are not deprecated')
    const selector = page.locator('.topbar select')
    t.same((await selector.locator('option').allInnerTexts()).map(text => text.trim()), ['v2', 'v1 (deprecated)', 'ops'], `${group}: selector`)
  }

  // Switching the selector loads the ops document.
  await page.locator('.topbar select').selectOption({ label: 'ops' })
  await page.locator('[data-path="/ping"]').first().waitFor({ timeout: 20_000 })
  t.ok(requested.every(url => url.startsWith(base)), 'the docs load nothing from outside the service')
})

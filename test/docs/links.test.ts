import t from 'tap'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// The user's documents link to one another; a moved section or renamed file must not leave a link
// that leads nowhere.
const root = resolve(import.meta.dirname, '../..')
const documents = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(root, 'docs')).filter(name => name.endsWith('.md')).map(name => `docs/${name}`)]

/** The text outside fenced code blocks and inline code, where a link is a link. */
function prose (markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf (markdown: string): Set<string> {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const [, heading] of markdown.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6} (.+)$/gm)) {
    const slug = heading!.trim().toLowerCase().replace(/[^\p{L}\p{N}\- _]/gu, '').replace(/ /g, '-')
    const count = seen.get(slug) ?? 0
    anchors.add(count === 0 ? slug : `${slug}-${count}`)
    seen.set(slug, count + 1)
  }
  return anchors
}

function linksOf (markdown: string): string[] {
  return [...prose(markdown).matchAll(/\[[^\]]*\]\(([^)\s]+)\)/g)].map(([, target]) => target!)
}

t.test('every relative link in the README, CONTRIBUTING.md and docs/ leads to a file and heading that exist', async t => {
  let checked = 0
  for (const document of documents) {
    const markdown = readFileSync(join(root, document), 'utf8')
    for (const target of linksOf(markdown)) {
      if (/^[a-z]+:/i.test(target)) continue
      const [path, anchor] = target.split('#') as [string, string | undefined]
      const file = path === '' ? join(root, document) : resolve(root, dirname(document), path)
      const name = relative(root, file)
      checked++
      if (!existsSync(file)) {
        t.fail(`${document}: ${target}: ${name} does not exist`)
        continue
      }
      if (anchor !== undefined) {
        const anchors = statSync(file).isFile() && file.endsWith('.md') ? anchorsOf(readFileSync(file, 'utf8')) : new Set<string>()
        t.ok(anchors.has(anchor), `${document}: ${target} names a heading of ${name}`)
      }
    }
  }
  t.ok(checked >= 30, `${checked} links checked`)
})

t.test('the README stays a page a user reads through: under 15 KB, with a table of contents', async t => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8')
  t.ok(Buffer.byteLength(readme) < 15 * 1024, `README.md is ${Buffer.byteLength(readme)} bytes`)
  const contents = readme.slice(readme.indexOf('\n## Contents'), readme.indexOf('\n## ', readme.indexOf('\n## Contents') + 1))
  const sections = [...readme.matchAll(/^## (.+)$/gm)].map(([, title]) => title!).filter(title => title !== 'Contents')
  for (const section of sections) t.match(contents, `](#${[...anchorsOf(`## ${section}`)][0]!})`, `the contents list "${section}"`)
})

// The checker itself: a heading's anchor as GitHub makes it, and a broken link found.
t.test('anchors follow GitHub\'s rules', async t => {
  t.same([...anchorsOf('## Lists: filters, sorts, pages\n### The HTTP path: `npm run bench`\n## Notes\n## Notes')],
    ['lists-filters-sorts-pages', 'the-http-path-npm-run-bench', 'notes', 'notes-1'])
  t.same(linksOf('[a](docs/api.md#errors) `[b](nowhere.md)`\n```\n[c](x.md)\n```\n[d](https://example.com)'), ['docs/api.md#errors', 'https://example.com'])
})

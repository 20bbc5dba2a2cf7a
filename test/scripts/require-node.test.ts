// On a Node.js older than package.json's engines, `npm start` and `npm test` stop at once with one
// line that names the version found and the way to the right one. The older Node.js is OLD_NODE
// (CI fetches one), else the first node older than the engines' major on PATH or at /usr/bin/node.
import t from 'tap'
import { execFileSync, spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

const root = join(import.meta.dirname, '../..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string }, scripts: Record<string, string> }
const required = Number(/\d+/.exec(pkg.engines.node)![0])

function versionOf (node: string): string | undefined {
  try {
    return execFileSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return undefined
  }
}

function olderNode (): { node: string, version: string } | undefined {
  const onPath = spawnSync('which', ['-a', 'node'], { encoding: 'utf8' }).stdout.split('\n').filter(line => line !== '')
  const candidates = process.env.OLD_NODE !== undefined ? [process.env.OLD_NODE] : [...onPath, '/usr/bin/node']
  for (const node of candidates) {
    const version = versionOf(node)
    if (version !== undefined && Number(version.split('.')[0]) < required) return { node, version }
  }
  return undefined
}

const older = olderNode()
if (older === undefined && process.env.CI === 'true') t.fail(`no Node.js older than ${required} to run: .ci/run sets OLD_NODE`)

for (const script of ['start', 'test']) {
  t.test(`npm ${script} on an older Node.js says in one line which one it needs`, { skip: older === undefined ? `no Node.js older than ${required} on this machine` : false }, async t => {
    const { node, version } = older!
    // What npm runs first: the script's first command, on the older node found first on PATH.
    const [command, ...args] = pkg.scripts[script]!.split(' && ')[0]!.split(' ')
    t.equal(command, 'node', `npm ${script} starts with a node command: ${pkg.scripts[script]}`)
    if (command !== 'node') return
    const run = spawnSync(node, args, { cwd: root, encoding: 'utf8', timeout: 60_000 })
    t.equal(run.status, 1, 'it stops with exit code 1')
    t.equal(run.stderr, `Node.js ${required} or newer is required (found ${version}); run \`source scripts/use-node.sh\`\n`, 'one line')
    t.equal(run.stdout, '', 'and nothing else')
  })
}

// Writes dist/build-info.json, what GET /info and the build_info metric report: the last step of
// `npm run build` and of the compile `npm start` does (scripts/compile.js). The commit is
// SOURCE_COMMIT when given (an image built without .git), else git's HEAD.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

function headCommit (root) {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return 'unknown'
  }
}

/** Writes the build info of the project at `root` into its dist/. */
export function writeBuildInfo (root) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const commit = process.env.SOURCE_COMMIT || headCommit(root)
  writeFileSync(join(root, 'dist/build-info.json'), `${JSON.stringify({ version, commit })}\n`)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeBuildInfo(resolve(import.meta.dirname, '..'))

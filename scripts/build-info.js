// Writes dist/build-info.json, what GET /info and the build_info metric report: the last step of
// `npm run build` and of the compile `npm start` does (scripts/compile.js). The commit is
// SOURCE_COMMIT when given (an image built without .git), else git's HEAD.
import { execFileSync } from 'node:child_process'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

function headCommit (root) {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return 'unknown'
  }
}

/** The build info of the project at `root` as it is now, as dist/build-info.json holds it. */
export function currentBuildInfo (root) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const commit = process.env.SOURCE_COMMIT || headCommit(root)
  return `${JSON.stringify({ version, commit })}\n`
}

/** Writes the build info of the project at `root` into its dist/, whole: a process starting meanwhile reads the old one or the new. */
export function writeBuildInfo (root) {
  const file = join(root, 'dist/build-info.json')
  writeFileSync(`${file}.${process.pid}`, currentBuildInfo(root))
  renameSync(`${file}.${process.pid}`, file)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeBuildInfo(resolve(import.meta.dirname, '..'))

// Writes dist/build-info.json, what GET /info and the build_info metric report: the last step of
// `npm run build` and of the compile `npm start` does (scripts/compile.js). The commit is
// SOURCE_COMMIT when given (an image built without .git), else git's HEAD.
import { execFileSync } from 'node:child_process'
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** What the commit is called when neither SOURCE_COMMIT nor git can tell it. */
export const UNKNOWN_COMMIT = 'unknown'

function headCommit (root) {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return UNKNOWN_COMMIT
  }
}

/** The build info of the project at `root` as it is now: its version and commit. */
export function currentBuildInfo (root) {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  return { version, commit: process.env.SOURCE_COMMIT || headCommit(root) }
}

/** Writes the build info of the project at `root` into its dist/, whole: a process starting meanwhile reads the old one or the new. */
export function writeBuildInfo (root) {
  const file = join(root, 'dist/build-info.json')
  const staging = `${file}.${process.pid}`
  try {
    writeFileSync(staging, `${JSON.stringify(currentBuildInfo(root))}\n`)
    renameSync(staging, file)
  } finally {
    rmSync(staging, { force: true })
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) writeBuildInfo(resolve(import.meta.dirname, '..'))

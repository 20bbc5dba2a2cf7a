// Part of `npm run build`: writes dist/build-info.json, what GET /info and the build_info metric
// report. The commit is SOURCE_COMMIT when given (an image built without .git), else git's HEAD.
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'

function headCommit () {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim()
  } catch {
    return 'unknown'
  }
}

const { version } = JSON.parse(readFileSync('package.json', 'utf8'))
const commit = process.env.SOURCE_COMMIT || headCommit()
writeFileSync('dist/build-info.json', `${JSON.stringify({ version, commit })}\n`)

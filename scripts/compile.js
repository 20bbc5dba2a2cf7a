// Keeps dist/ up to date with the TypeScript sources for scripts/start.js: compiles when dist/ is
// missing or older than the sources, then writes its build info as `npm run build` does; after a
// commit that changed no source, it rewrites the build info alone. Run alone
// (`node scripts/compile.js`), it brings dist/ up to date and starts nothing.
import { execFileSync } from 'node:child_process'
import { existsSync, linkSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { UNKNOWN_COMMIT, currentBuildInfo, writeBuildInfo } from './build-info.js'

const SOURCE_DIRS = ['src', 'plugins', 'routes']

function newestSource (dir) {
  let newest = 0
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path))
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs)
  }
  return newest
}

// The build info is written last, so a dist/ whose build info is newer than every source is complete.
function stale (root, entry) {
  const marker = join(root, 'dist/build-info.json')
  if (!existsSync(marker) || !existsSync(join(root, 'dist', entry))) return true
  const sourceTime = Math.max(...SOURCE_DIRS.map(dir => newestSource(join(root, dir))), statSync(join(root, 'tsconfig.json')).mtimeMs)
  return statSync(marker).mtimeMs < sourceTime
}

function alive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return error.code === 'EPERM'
  }
}

// Processes starting at once on a stale dist/ (test files running side by side) compile one at a
// time: the lock file, created whole by a hard link, names its holder, and a dead holder's lock is taken over.
async function locked (root, fn) {
  const lock = join(root, 'dist.lock')
  const mine = `${lock}.${process.pid}`
  writeFileSync(mine, String(process.pid))
  try {
    for (;;) {
      try {
        linkSync(mine, lock)
        break
      } catch (error) {
        if (error.code !== 'EEXIST') throw error
      }
      let holder
      try {
        holder = Number(readFileSync(lock, 'utf8'))
      } catch (error) {
        if (error.code === 'ENOENT') continue // released a moment ago
        throw error
      }
      if (!alive(holder)) rmSync(lock, { force: true })
      else await sleep(200)
    }
  } finally {
    rmSync(mine, { force: true })
  }
  try {
    return fn()
  } finally {
    rmSync(lock, { force: true })
  }
}

// A commit that changes no source leaves the compiled code as it is, but not the commit /info
// reports. Where the commit cannot be told now (no git, no SOURCE_COMMIT), the one written stays.
function buildInfoOutdated (root) {
  const current = currentBuildInfo(root)
  if (current.commit === UNKNOWN_COMMIT) return false
  const written = JSON.parse(readFileSync(join(root, 'dist/build-info.json'), 'utf8'))
  return written.commit !== current.commit || written.version !== current.version
}

/** Compiles the project at `root` unless dist/ already holds an up-to-date build with `entry` in it. */
export async function compileWhenStale (root, entry) {
  if (!SOURCE_DIRS.every(dir => existsSync(join(root, dir)))) return // an install without sources runs dist/ as it is
  if (stale(root, entry)) {
    await locked(root, () => {
      if (!stale(root, entry)) return
      process.stderr.write('compiling TypeScript to dist/ ...\n')
      execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' })
      writeBuildInfo(root)
    })
  } else if (buildInfoOutdated(root)) {
    // Only the commit it names is out of date: a dist/ this process may not write to still runs.
    try {
      await locked(root, () => { if (buildInfoOutdated(root)) writeBuildInfo(root) })
    } catch (error) {
      process.stderr.write(`dist/build-info.json names an older commit and could not be rewritten: ${error.message}\n`)
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await compileWhenStale(resolve(import.meta.dirname, '..'), 'src/server.js')

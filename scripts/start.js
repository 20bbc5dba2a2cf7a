#!/usr/bin/env node
// Runs a compiled entry point (default: the server), compiling first when dist/ is missing or older
// than the TypeScript sources, so `npm ci && npm start` works on a fresh clone.
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const root = resolve(import.meta.dirname, '..')
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

const entry = process.argv[2] ?? 'src/server.js'
const compiled = join(root, 'dist', entry)
const sourcesPresent = SOURCE_DIRS.every(dir => existsSync(join(root, dir)))
if (sourcesPresent) {
  const sourceTime = Math.max(...SOURCE_DIRS.map(dir => newestSource(join(root, dir))), statSync(join(root, 'tsconfig.json')).mtimeMs)
  if (!existsSync(compiled) || statSync(compiled).mtimeMs < sourceTime) {
    process.stderr.write('compiling TypeScript to dist/ ...\n')
    execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.json')], { stdio: 'inherit' })
  }
}
process.argv.splice(2, 1)
await import(pathToFileURL(compiled).href)

#!/usr/bin/env node
// Runs a compiled entry point (default: the server), compiling first when dist/ is missing or older
// than the TypeScript sources, so `npm ci && npm start` works on a fresh clone.
import './require-node.js'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { compileWhenStale } from './compile.js'

const root = resolve(import.meta.dirname, '..')
const entry = process.argv[2] ?? 'src/server.js'
await compileWhenStale(root, entry)
process.argv.splice(2, 1)
await import(pathToFileURL(join(root, 'dist', entry)).href)

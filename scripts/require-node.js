// Run first by `npm start` (through scripts/start.js) and `npm test`: on an older Node.js they stop
// here with one line instead of failing later with an error that does not name the cause. The
// lowest major comes from package.json's engines. Kept to syntax and APIs that old versions have.
import { readFileSync } from 'node:fs'

const { engines } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
const required = Number(/\d+/.exec(engines.node)[0])
const found = process.versions.node
if (Number(found.split('.')[0]) < required) {
  process.stderr.write(`Node.js ${required} or newer is required (found ${found}); run \`source scripts/use-node.sh\`\n`)
  process.exit(1)
}

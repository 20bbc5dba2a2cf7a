// What reading a timestamp costs, the two ways the service has read them: pg's parser to a Date then
// toISOString (as the representations did), and isoTimestampOf (the text moved into ISO form). CPU time of
// this process per page of 20 candidatos (63 timestamps), interleaved rounds, medians and the ratio:
// `node --import=tsx bench/timestamp-cost.ts`.
import pg from 'pg'
import { isoTimestampOf } from '../src/storage/timestamps.js'

const PER_PAGE = 63
const PAGES = 20_000
const ROUNDS = 7
const parseDate = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ)
// Milliseconds as PostgreSQL prints them: 0 to 3 digits, trailing zeros dropped.
const texts = Array.from({ length: PER_PAGE }, (_, i) => `2026-05-${String(1 + (i % 28)).padStart(2, '0')} 13:45:12${i % 4 === 0 ? '' : `.${String(i * 7).replace(/0+$/, '')}`}+00`)

const ways = {
  'Date then toISOString': (text: string) => (parseDate(text) as Date).toISOString(),
  isoTimestampOf
}

function microsPerPage (read: (text: string) => string): number {
  let sink = 0
  const start = process.cpuUsage()
  for (let page = 0; page < PAGES; page++) for (const text of texts) sink += read(text).length
  const used = process.cpuUsage(start)
  if (sink === 0) throw new Error('nothing read')
  return (used.user + used.system) / PAGES
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const samples = new Map<string, number[]>(Object.keys(ways).map(name => [name, []]))
for (const read of Object.values(ways)) microsPerPage(read) // warm-up
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 === 0 ? Object.entries(ways) : Object.entries(ways).reverse()
  for (const [name, read] of order) samples.get(name)!.push(microsPerPage(read))
}
const before = median(samples.get('Date then toISOString')!)
const after = median(samples.get('isoTimestampOf')!)
for (const [name, values] of samples) console.log(`${name.padEnd(24)} ${median(values).toFixed(2)} µs CPU per page of ${PER_PAGE} timestamps (median of ${ROUNDS})`)
console.log(`saved per page: ${(before - after).toFixed(2)} µs; ratio ${(before / after).toFixed(1)}x`)

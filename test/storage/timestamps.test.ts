import t from 'tap'
import pg from 'pg'
import { isoTimestampOf } from '../../src/storage/timestamps.ts'

// What pg's own parser reads, formatted as the representations did before timestamps stayed strings.
const parseDate = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ)
const viaDate = (text: string): string => new Date(parseDate(text) as Date).toISOString()

t.test('a timestamptz in any form PostgreSQL sends reads as the ISO 8601 string a Date would give', async t => {
  const texts = [
    '2026-05-04 13:45:12+00', // no fraction
    '2026-05-04 13:45:12.3+00', // trailing zeros dropped
    '2026-05-04 13:45:12.34+00',
    '2026-05-04 13:45:12.345+00',
    '2026-05-04 13:45:12.345678+00', // beyond milliseconds: cut, as a Date cuts it
    '2026-05-04 10:45:12.345-03', // a session in another time zone
    '2026-05-04 13:45:12.345+05:30',
    '0099-05-04 13:45:12.345+00',
    '2026-05-04 13:45:12.345+00 BC'
  ]
  for (const text of texts) t.equal(isoTimestampOf(text), viaDate(text), text)
})

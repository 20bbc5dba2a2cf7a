import fc from 'fast-check'

/** Text an attacker or a broken client sends where a value goes. */
export const HOSTILE_TEXT = [
  '', ' ', '0', '-1', '1e400', 'Infinity', '-Infinity', 'NaN', '9007199254740993', 'true', 'null', '[]', '{}',
  "' OR 1=1 --", "'; DROP TABLE vagas; --", '" OR ""="', '%', '_', '\\', '%00', '\u0000', 'a\u0000b',
  '../../etc/passwd', '..%2F..%2Fetc%2Fpasswd', '%C3%28', '%FF%FE', '%E0%80%AF', 'a&limit=5', 'a#frag', 'a?b=c', '/', '//', '%2e%2e%2f', '<script>alert(1)</script>',
  'a\r\nX-Injected: yes', '\r\n\r\nHTTP/1.1 200 OK', '\ud800', '\udfff\ud800', '😀'.repeat(50), 'ä'.repeat(300),
  'x'.repeat(5_000), '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '-criadoEm,nome', 'nome,,', '-', '--criadoEm', 'aberta', 'inscrito', 'v1', '1.0'
]

/** Any text: random, random Unicode (lone surrogates included), a hostile classic, or one of `known`. */
export function textValue (known: readonly string[] = []): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_TEXT) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.integer().map(String) },
    { weight: 1, arbitrary: fc.double().map(String) },
    ...(known.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...known) }] : [])
  )
}

/** The edges of a number's range and just past them, fractions, and numbers that are not finite. */
function numberBoundaries (schema: Record<string, unknown>): unknown[] {
  const edges = [schema.minimum, schema.maximum].filter((edge): edge is number => typeof edge === 'number')
  return [...edges.flatMap(edge => [edge - 1, edge, edge + 1]), 0, -1, 1.5, 2 ** 53 + 2, 'Infinity', '-Infinity', '1e400', 'NaN', '0x10', '']
}

/** A value the schema accepts, or nearly: most requests should get past validation and reach the code behind it. */
export function plausibleValue (schema: Record<string, unknown> | undefined, known: readonly string[]): fc.Arbitrary<unknown> {
  if (Array.isArray(schema?.enum)) return fc.constantFrom(...schema.enum as unknown[])
  if (schema?.type === 'integer') return fc.integer({ min: Number(schema.minimum ?? 0), max: Number(schema.maximum ?? 1000) })
  if (schema?.type === 'boolean') return fc.boolean()
  if (schema?.format === 'email') return fc.emailAddress()
  if (schema?.format === 'uuid') return fc.constantFrom(...known)
  // A pattern-bound text here is a sort or a cursor: a sort every collection accepts.
  if (typeof schema?.pattern === 'string') return fc.constantFrom('-criadoEm', 'criadoEm', '-atualizadoEm,criadoEm')
  const values = Array.isArray(schema?.anyOf) ? (schema.anyOf as Array<Record<string, unknown>>) : undefined
  if (values !== undefined) return fc.oneof(...values.map(value => plausibleValue(value, known)))
  if (schema?.type === 'null') return fc.constant(null)
  return fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom('-criadoEm', 'nome,-atualizadoEm', 'titulo', 'ana', ...known))
}

/** A value in the schema's own terms most of the time, any JSON value otherwise: wrong types included. */
export function jsonValue (schema: Record<string, unknown> | undefined, known: readonly string[]): fc.Arbitrary<unknown> {
  const enums = Array.isArray(schema?.enum) ? schema.enum as unknown[] : []
  const numeric = schema?.type === 'integer' || schema?.type === 'number'
  const boundaries = numeric ? numberBoundaries(schema) : []
  const deep = fc.integer({ min: 20, max: 200 }).map(depth => JSON.parse('['.repeat(depth) + ']'.repeat(depth)) as unknown)
  return fc.oneof(
    { weight: 3, arbitrary: textValue(known) },
    ...(enums.length > 0 ? [{ weight: 3, arbitrary: fc.constantFrom(...enums) }] : []),
    ...(boundaries.length > 0 ? [{ weight: 4, arbitrary: fc.constantFrom(...boundaries) }] : []),
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
    { weight: 1, arbitrary: deep }
  )
}

/**
 * A request body: an object shaped by the schema's properties (plausible values, or one field hostile),
 * or, when `hostile`, any JSON, broken JSON, prototype pollution, deep nesting or bytes that are not UTF-8.
 */
export function bodyValue (schema: Record<string, unknown> | undefined, known: readonly string[], hostile: boolean): fc.Arbitrary<string | Buffer> {
  const properties = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>
  const names = Object.keys(properties)
  const required = Array.isArray(schema?.required) ? schema.required as string[] : []
  const shaped = (hostile ? fc.integer({ min: 0, max: names.length - 1 }) : fc.constant(-1)).chain(fault => fc.record(
    Object.fromEntries(names.map((name, i) => [name, fault === i ? jsonValue(properties[name], known) : plausibleValue(properties[name], known)])),
    { requiredKeys: fault === -1 ? required : [] }
  )).map(object => JSON.stringify(object))
  if (!hostile) return shaped
  return fc.oneof(
    { weight: 3, arbitrary: shaped },
    { weight: 1, arbitrary: fc.jsonValue().map(value => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.constantFrom('{', '{"titulo":', 'null', '[]', '"x"', '{"a":1}{"b":2}', '{"titulo":"a","titulo":"b"}', '{"unknownField":1}') },
    { weight: 1, arbitrary: fc.constantFrom('{"__proto__":{"admin":true},"titulo":"x"}', '{"constructor":{"prototype":{"admin":true}}}') },
    // Nesting far deeper than any value the test itself holds: sent as text.
    { weight: 1, arbitrary: fc.integer({ min: 1_000, max: 100_000 }).map(depth => `{"titulo":${'['.repeat(depth)}${']'.repeat(depth)}}`) },
    // Invalid UTF-8: a lone continuation byte, an overlong encoding, a truncated sequence.
    { weight: 1, arbitrary: fc.constantFrom(Buffer.from([0x7b, 0x22, 0x74, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), Buffer.from([0xff, 0xfe, 0xfd]), Buffer.from('{"nome":"\xe0\x80\xaf"}', 'latin1')) }
  )
}

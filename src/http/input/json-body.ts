import type { FastifyBodyParser, FastifyInstance } from 'fastify'
import type { Problem } from '../problems/problem.ts'
import { problem } from '../problems/error-catalogue.ts'

// RFC 8259 section 8.1: JSON text is UTF-8. A lenient decoder would store U+FFFD in place of bad bytes.
const utf8 = new TextDecoder('utf-8', { fatal: true })

// A surrogate can only reach a parsed string through a `\uD800`-`\uDFFF` escape: fatal UTF-8 decoding
// refuses encoded ones. Only a body holding such an escape is walked.
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/
// In a Unicode-aware pattern a well-formed pair is one astral character: only a lone surrogate is Cs.
const LONE_SURROGATE = /\p{Cs}/u

function hasLoneSurrogate (value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value)
  if (value === null || typeof value !== 'object') return false
  for (const key in value) {
    if (LONE_SURROGATE.test(key) || hasLoneSurrogate((value as Record<string, unknown>)[key])) return true
  }
  return false
}

function invalidBody (detail: string): Problem {
  return problem('InvalidJson', { detail })
}

/**
 * Fastify's JSON parser (with its prototype-poisoning rules), over a body decoded strictly: invalid
 * UTF-8 and lone surrogates (`"\ud800"`, valid JSON but no Unicode text) answer 400 instead of being
 * stored altered.
 */
export function exactJsonParser (fastify: FastifyInstance): FastifyBodyParser<Buffer> {
  const { onProtoPoisoning, onConstructorPoisoning } = fastify.initialConfig
  const parse = fastify.getDefaultJsonParser(onProtoPoisoning ?? 'error', onConstructorPoisoning ?? 'error')
  return (request, body, done) => {
    let text: string
    try {
      text = utf8.decode(body)
    } catch {
      done(invalidBody('The request body is not valid UTF-8.'), undefined)
      return
    }
    parse(request, text, (error, value) => {
      if (error === null && SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(value)) {
        done(invalidBody('The request body holds a lone surrogate escape (such as \\ud800), which is no Unicode character.'), undefined)
        return
      }
      done(error, value)
    })
  }
}

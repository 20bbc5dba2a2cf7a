import t from 'tap'
import assert from 'node:assert/strict'
import { InvalidTokenError } from '../../src/auth/errors.ts'
import type { JwtClaims } from '../../src/auth/jwt-verifier.ts'
import { createTokenVerifier, type TokenVerifierParts } from '../../src/auth/token-verifier.ts'
import { eventually } from '../support/eventually.ts'

const now = () => Math.floor(Date.now() / 1000)

/** A verifier whose JWT and introspection answers come from a table, counting how often each is asked. */
function verifierWith (claimsByToken: Record<string, JwtClaims>, extra: Partial<TokenVerifierParts> = {}) {
  const asked: string[] = []
  const answer = async (token: string): Promise<JwtClaims> => {
    asked.push(token)
    const claims = claimsByToken[token]
    if (claims === undefined || (typeof claims.exp === 'number' && claims.exp * 1000 <= Date.now())) throw new InvalidTokenError('expired')
    return claims
  }
  const verify = createTokenVerifier({ verifyJwt: answer, rules: {}, remember: { maxEntries: 2, maxAgeMs: 60_000 }, ...extra })
  return { verify, asked }
}

t.test('a verified JWT is checked once, then answered from memory with the same principal', async t => {
  const { verify, asked } = verifierWith({ 'h.p.s': { sub: 'ana', scope: 'vagas:read', exp: now() + 3600 } })
  const first = await verify('h.p.s')
  const second = await verify('h.p.s')
  t.equal(second.sub, 'ana')
  t.same([...second.scopes], ['vagas:read'])
  t.equal(second, first)
  t.same(asked, ['h.p.s'])
})

t.test('a remembered token is verified again once its exp has passed, and then refused', async t => {
  const { verify, asked } = verifierWith({ 'h.short.s': { sub: 'ana', exp: now() + 1 } })
  await verify('h.short.s')
  // Answered from memory until exp passes (no new ask), then asked again and refused.
  await eventually(async () => { await assert.rejects(verify('h.short.s'), InvalidTokenError) }, { interval: 50 })
  t.equal(asked.length, 2)
})

t.test('a token not valid before a future time (nbf) is not remembered', async t => {
  const { verify, asked } = verifierWith({ 'h.nbf.s': { sub: 'ana', exp: now() + 3600, nbf: now() + 60 } })
  await verify('h.nbf.s')
  await verify('h.nbf.s')
  t.equal(asked.length, 2)
})

t.test('revocation is checked on every request, remembered token or not', async t => {
  const revoked = new Set<string>()
  const { verify } = verifierWith({ 'h.j.s': { sub: 'ana', jti: 'j1', exp: now() + 3600 } }, { isRevoked: async jti => revoked.has(jti) })
  await verify('h.j.s')
  revoked.add('j1')
  const refused = await verify('h.j.s').then(() => undefined, (error: unknown) => error)
  t.ok(refused instanceof InvalidTokenError, 'refused as an invalid token')
  t.equal((refused as InvalidTokenError).reason, 'revoked')
})

t.test('introspected tokens are left to the introspection cache', async t => {
  const asked: string[] = []
  const verify = createTokenVerifier({
    verifyJwt: async () => { throw new Error('not a JWT') },
    introspect: async token => { asked.push(token); return { sub: 'ana', exp: now() + 3600 } },
    rules: {},
    remember: { maxEntries: 10, maxAgeMs: 60_000 }
  })
  await verify('opaque')
  await verify('opaque')
  t.equal(asked.length, 2)
})

t.test('at most maxEntries tokens are remembered; the oldest makes room', async t => {
  const exp = now() + 3600
  const { verify, asked } = verifierWith({ 'h.a.s': { sub: 'a', exp }, 'h.b.s': { sub: 'b', exp }, 'h.c.s': { sub: 'c', exp } })
  for (const token of ['h.a.s', 'h.b.s', 'h.c.s', 'h.c.s', 'h.b.s', 'h.a.s']) await verify(token)
  t.same(asked, ['h.a.s', 'h.b.s', 'h.c.s', 'h.a.s'])
})

/** Who called, as proven by a verified access token. */
export interface Principal {
  /** The token's subject (`sub`), when it names one. */
  sub?: string
  /** Every scope the token grants (`scope`, space-separated, and `scp`). */
  scopes: ReadonlySet<string>
  /** The client the token was issued to (`client_id` or `azp`). */
  clientId?: string
  /** The token's id (`jti`), used for revocation. */
  jti?: string
  /** Expiry in seconds since the epoch (`exp`). */
  expiresAt?: number
  /**
   * Who acts, unambiguously: the subject, else `client:<client id>`, then `@<iss>` when the token
   * names an issuer other than the one every token must carry. Recorded as a candidato action's
   * `ator` and owns the caller's idempotency keys.
   */
  actor: string
  /** All claims as verified, for routes that need more. */
  claims: Readonly<Record<string, unknown>>
}

/** Scopes from the `scope` claim (RFC 8693/9068, space-separated) and the `scp` claim (array or string). */
export function scopesOf (claims: Record<string, unknown>): Set<string> {
  const scopes = new Set<string>()
  const add = (value: unknown) => {
    if (typeof value === 'string') {
      for (const scope of value.split(' ')) if (scope !== '') scopes.add(scope)
    } else if (Array.isArray(value)) {
      for (const item of value) if (typeof item === 'string' && item !== '') scopes.add(item)
    }
  }
  add(claims.scope)
  add(claims.scp)
  return scopes
}

// `%`, `:` and `@` are percent-encoded in a subject or client id (`%` and `@` in an issuer): a subject
// never looks like `client:...`, and the `@` before the issuer is the only one, so two different
// callers never share an actor.
const escaped = (value: string, special: RegExp): string => value.replace(special, char => encodeURIComponent(char))

function actorOf (claims: Record<string, unknown>, sub: string | undefined, clientId: string | undefined, requiredIssuer: string | undefined): string {
  const who = sub !== undefined ? escaped(sub, /[%:@]/g) : `client:${escaped(clientId ?? '', /[%:@]/g)}`
  const issuer = typeof claims.iss === 'string' && claims.iss !== requiredIssuer ? claims.iss : undefined
  return issuer === undefined ? who : `${who}@${escaped(issuer, /[%@]/g)}`
}

/**
 * The principal for a verified claim set (checkClaims passed: it names a subject or a client).
 * `requiredIssuer` is the issuer every accepted token carries, when one is configured.
 */
export function principalOf (claims: Record<string, unknown>, requiredIssuer?: string): Principal {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined)
  const sub = text(claims.sub)
  const clientId = text(claims.client_id) ?? text(claims.azp)
  return {
    sub,
    scopes: scopesOf(claims),
    clientId,
    jti: text(claims.jti),
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    actor: actorOf(claims, sub, clientId, requiredIssuer),
    claims
  }
}

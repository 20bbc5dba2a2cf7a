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

/** The principal for a verified claim set. */
export function principalOf (claims: Record<string, unknown>): Principal {
  const text = (value: unknown) => (typeof value === 'string' ? value : undefined)
  return {
    sub: text(claims.sub),
    scopes: scopesOf(claims),
    clientId: text(claims.client_id) ?? text(claims.azp),
    jti: text(claims.jti),
    expiresAt: typeof claims.exp === 'number' ? claims.exp : undefined,
    claims
  }
}

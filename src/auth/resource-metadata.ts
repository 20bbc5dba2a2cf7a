// RFC 9728: OAuth 2.0 Protected Resource Metadata.

export const METADATA_PATH = '/.well-known/oauth-protected-resource'

/** Where a resource's metadata lives (RFC 9728 section 3.1); our resource identifiers are origins. */
export function protectedResourceMetadataUrl (resource: string): string {
  return `${resource.replace(/\/+$/, '')}${METADATA_PATH}`
}

export interface ProtectedResourceMetadata {
  resource: string
  authorization_servers?: string[]
  scopes_supported: string[]
  bearer_methods_supported: string[]
  resource_name?: string
}

export interface MetadataInputs {
  resource: string
  issuer?: string
  scopes: Iterable<string>
  queryTokens: boolean
}

export function protectedResourceMetadata (inputs: MetadataInputs): ProtectedResourceMetadata {
  return {
    resource: inputs.resource,
    ...(inputs.issuer !== undefined && { authorization_servers: [inputs.issuer] }),
    scopes_supported: [...inputs.scopes].sort(),
    bearer_methods_supported: inputs.queryTokens ? ['header', 'body', 'query'] : ['header', 'body']
  }
}

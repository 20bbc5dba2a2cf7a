import { readFileSync } from 'node:fs'
import { ConfigError, type Config } from './config.ts'

export interface TlsOptions {
  cert: Buffer
  key: Buffer
}

function readPem (name: 'TLS_CERT_FILE' | 'TLS_KEY_FILE', path: string): Buffer {
  try {
    return readFileSync(path)
  } catch (error) {
    throw new ConfigError(`${name} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}): expected a path to a PEM file`)
  }
}

/** The certificate and key when TLS_CERT_FILE and TLS_KEY_FILE are both set; undefined for plain HTTP. */
export function tlsOptions (config: Config): TlsOptions | undefined {
  const { TLS_CERT_FILE: certFile, TLS_KEY_FILE: keyFile } = config
  if (certFile === undefined && keyFile === undefined) return undefined
  if (certFile === undefined || keyFile === undefined) throw new ConfigError('Set both TLS_CERT_FILE and TLS_KEY_FILE to serve HTTPS, or neither')
  return { cert: readPem('TLS_CERT_FILE', certFile), key: readPem('TLS_KEY_FILE', keyFile) }
}

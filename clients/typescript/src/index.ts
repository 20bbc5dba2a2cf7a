// The typed client: `createClient(version, options)` for any API version, a named client per version
// (`createV2Client`, ...) and the operations' client. The versions, their types and named clients are
// generated from the service's version table (src/generated/versions.ts).
export { createClient, createOpsClient, type ClientOptions } from './client.js'
export * from './generated/versions.js'

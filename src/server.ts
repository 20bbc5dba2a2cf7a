// The service's entry point, however it is started (`node dist/src/server.js`, `npm start`, the image).
// Tracing is loaded first when it is configured, so that the SDK patches the modules the service
// imports (pg, ioredis, @grpc/grpc-js) before anything imports them: hence dynamic imports, in order.
await import('./tracing/preload.ts')
await import('./service-process.ts')

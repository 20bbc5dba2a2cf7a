// The baseline: a bare Fastify 5 app with default options that answers `pong` to any request.
// The service is measured against it, so a ratio of 1.0 means "costs nothing over Fastify itself".
import Fastify from 'fastify'

const app = Fastify()

app.get('/ping', async () => 'pong')
// Any other scenario's request reaches the same answer, so every scenario has a like-for-like baseline.
app.all('/*', async () => 'pong')

await app.listen({ port: Number(process.env.PORT ?? 0), host: process.env.HOST ?? '127.0.0.1' })

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => { app.close().then(() => process.exit(0), () => process.exit(1)) })
}

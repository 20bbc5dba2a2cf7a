# syntax=docker/dockerfile:1
# Two stages: compile with the dev dependencies, run with the production dependencies only.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY plugins ./plugins
COPY routes ./routes
COPY scripts/build-info.js ./scripts/
# GET /info and the build_info metric name the commit: `docker build --build-arg SOURCE_COMMIT=$(git rev-parse HEAD) .`
ARG SOURCE_COMMIT
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The embedded database lives in DATA_DIR; the image's own "node" user (uid 1000) owns it.
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 3000
# The command probe: exit 0 healthy, 1 unhealthy or unreachable (it reads HOST and PORT like the server).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "dist/src/cli/healthcheck.js", "live"]
# node runs as PID 1 and handles SIGTERM itself (close-with-grace) for a graceful stop.
# The V8 flags come first (bench/shipped-process.ts reads them from here): a 64 MB young generation
# (semi-space). At a few thousand requests per second the default 16 MB fills before the requests in
# flight finish, so their objects are copied and promoted; measured on a candidato read, garbage
# collection fell from about a quarter of the CPU to about 6%. The minimum too (a flag NODE_OPTIONS
# refuses): left to its heuristics V8 kept about half the space, and a probe cost a fifth more CPU.
# No allocation-site pretenuring: once a burst of requests in flight survived a scavenge, V8 began
# allocating their row objects and strings straight in the old generation, where they died: each
# scavenge took 10 ms instead of 3 and p99 at half capacity doubled (docs/benchmarks.md, "Costs").
# Heap growing percent 200: after a full collection the old generation may grow to three times what
# it kept. V8's own choice settled near 1.2 times under steady load, a full collection every 3-4 s
# whose concurrent marking held a one-core instance for 100-150 ms (docs/operations.md, "Container").
# The server loads tracing first when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Tracing").
CMD ["node", "--min-semi-space-size=64", "--max-semi-space-size=64", "--no-allocation-site-pretenuring", "--heap-growing-percent=200", "dist/src/server.js"]

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
# The V8 flags come first (bench/shipped-process.ts reads them from here). They keep garbage
# collection out of the requests' way and bound the memory it keeps: a fixed young generation of
# 16 MB semi-spaces (the minimum is a flag NODE_OPTIONS refuses; left alone, Node grows them to 64 MB
# under load, and both stay resident), no allocation-site pretenuring (request objects stay young,
# where they die), and a heap growing percent of 50 (a full collection once the old generation grows
# by half: what it gains under load is mostly promoted garbage, which a larger step keeps resident).
# What each one saves: docs/benchmarks.md, "Costs behind the code".
# The server loads tracing first when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Tracing").
CMD ["node", "--min-semi-space-size=16", "--max-semi-space-size=16", "--no-allocation-site-pretenuring", "--heap-growing-percent=50", "dist/src/server.js"]

# syntax=docker/dockerfile:1
# Two stages: compile with the dev dependencies, run with the production dependencies only.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY plugins ./plugins
COPY routes ./routes
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
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
# HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 CMD ["node", "dist/src/cli/healthcheck.js", "live"]
# node runs as PID 1 and handles SIGTERM itself (close-with-grace) for a graceful stop.
CMD ["node", "dist/src/server.js"]

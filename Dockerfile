# syntax=docker/dockerfile:1
# Build stage: compiles TypeScript and builds better-sqlite3's native addon against Node 22.
FROM node:22-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts ./scripts
RUN npm run build && npm prune --omit=dev

# Final stage: production dependencies, compiled code and migrations only; runs as a non-root user.
FROM node:22-slim
# MALLOC_ARENA_MAX: glibc gives each thread that allocates (libuv's pool: argon2, zlib, file reads) an
# arena of its own, up to 8 per core, and keeps their memory after load; two arenas hold the idle RSS
# after load some 10 MB lower (bench/memory-probe.ts). Read at the first malloc, so it is set here.
ENV NODE_ENV=production \
    MALLOC_ARENA_MAX=2 \
    PORT=8787 \
    DATABASE_PATH=/data/social-intel-mcp.db
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY migrations ./migrations
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:8787/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/main.js"]

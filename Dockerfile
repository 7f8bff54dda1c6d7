# The mock in a container:
#   docker build -t cellseg-mock .
#   docker run --rm -p 8000:8000 cellseg-mock                  # then use http://localhost:8000/api/v1
#   docker run --rm -p 9000:8000 -e PUBLIC_BASE_URL=http://localhost:9000 cellseg-mock
# Options go after the image name (`... cellseg-mock start --log-level debug`) or as environment
# variables (`-e PREDICTION_RUN_DELAY_MS=0`); `... cellseg-mock --help` lists them. Change the port
# with PORT (not --port) so that the health check follows it.

# Node 22, the maintenance LTS line (package.json "engines": >=22.19; 24 works as well). SQLite is
# Node's built-in node:sqlite, so npm ci builds nothing native and the slim image needs no compiler.
FROM node:22-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY bin ./bin
COPY mock-server ./mock-server
COPY openapi ./openapi
COPY fixtures/seed.json ./fixtures/seed.json
# `npm ci` builds dist/ (the `prepare` script: one esbuild bundle); the image then keeps only what
# runs it: dist/ and the one runtime dependency (sharp).
RUN npm ci --no-audit --no-fund \
  && npm prune --omit=dev --no-audit --no-fund \
  && npm cache clean --force

FROM node:22-bookworm-slim
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=deps /app/dist ./dist
COPY package.json ./
COPY bin/cellseg-mock.js bin/dist-status.js ./bin/
# Listen on every interface inside the container. The URLs the mock hands out (presigned part
# URLs, share links) are built from PUBLIC_BASE_URL: set it to the address clients reach.
ENV HOST=0.0.0.0 \
    PORT=8000 \
    PUBLIC_BASE_URL=http://localhost:8000
# Code and node_modules stay root-owned and read-only; the mock writes only to its temporary data
# folder (under /tmp) or to DATA_DIR, which must then be writable by `node`.
USER node
EXPOSE 8000
# No curl in the slim image: Node's own fetch asks the mock's liveness route.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8000) + '/__mock/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node runs as PID 1 and main handles SIGTERM itself: `docker stop` lets in-flight requests finish.
ENTRYPOINT ["node", "bin/cellseg-mock.js"]
CMD ["start"]

# The migration job's image: the Prisma CLI (wasm schema engine, no engine binary) with the
# driver adapter, the schemas and migrations, and tools/containers/migrate.cjs, which creates
# the databases when missing and runs `prisma migrate deploy` for the auth and resource schemas.
# Build from the repository root:
#   docker build -f tools/containers/migrate.Dockerfile -t localhost/course-platform/migrate .
# The base image is a build argument whose default is the official image (CI: its local
# stand-in, see tools/containers/base-images.sh).
# Run: AUTH_DATABASE_URL and RESOURCE_DATABASE_URL (see migrate.cjs for the options).

ARG NODE_IMAGE=node:24-bookworm-slim

# --- deps: prisma, @prisma/adapter-pg and pg at the workspace's locked versions, nothing else.
FROM ${NODE_IMAGE} AS deps
WORKDIR /deps
ENV NODE_ENV=production
COPY package.json package-lock.json /workspace/
COPY tools/containers/runtime-manifest.cjs /workspace/tools/containers/
RUN node /workspace/tools/containers/runtime-manifest.cjs --root /workspace \
      --packages prisma,@prisma/adapter-pg,pg --out /deps
# --ignore-scripts: @prisma/engines' postinstall would download engine binaries that the
# js engine (prisma/*/prisma.config.ts: engine 'js') never uses.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# --- runtime
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    CHECKPOINT_DISABLE=1 \
    PRISMA_HIDE_UPDATE_MESSAGE=1
WORKDIR /migrate
COPY --from=deps /deps/node_modules ./node_modules
COPY prisma ./prisma
COPY tools/prisma ./tools/prisma
COPY tools/containers/migrate.cjs ./tools/containers/migrate.cjs
USER node
# A one-shot job: nothing to probe; docker-compose.yml waits for it to exit 0.
HEALTHCHECK NONE
CMD ["node", "tools/containers/migrate.cjs"]

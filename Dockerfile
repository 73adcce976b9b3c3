# syntax=docker/dockerfile:1
#
# Meridian: one image, four entry points (see docker/entrypoint.sh and docs/operations.md).
#
#   docker build -t meridian:local .
#   docker run --rm meridian:local migrate     # apply database migrations, then exit
#   docker run meridian:local web               # REST API on :8080 (the default command)
#   docker run meridian:local worker
#   docker run meridian:local scheduler

ARG NODE_IMAGE=node:24-bookworm-slim

# ---------------------------------------------------------------------------------------------
# build: install every dependency, compile all workspace projects, then prepare a pruned copy
# (production dependencies only) in /out.
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build

ENV CI=true \
    NX_DAEMON=false \
    NX_NO_CLOUD=true

RUN npm i -g pnpm@10.34.9

WORKDIR /src

# Download the locked packages into the store first: this layer stays cached until the lockfile changes.
COPY pnpm-lock.yaml pnpm-workspace.yaml package.json ./
RUN pnpm fetch --frozen-lockfile

COPY . .
RUN pnpm install --frozen-lockfile --offline
RUN pnpm exec nx run-many -t build

# Production node_modules in a clean copy of the workspace manifests. The workspace packages
# (@meridian/*) are linked relative to /out, so their dist folders are copied in next to them.
RUN set -eux; \
    mkdir -p /out; \
    cp package.json pnpm-lock.yaml pnpm-workspace.yaml /out/; \
    for manifest in $(find apps libs tools -mindepth 2 -maxdepth 2 -name package.json); do \
      mkdir -p "/out/$(dirname "$manifest")"; \
      cp "$manifest" "/out/$manifest"; \
    done; \
    cd /out; \
    pnpm install --prod --frozen-lockfile --offline

RUN set -eux; \
    for dist in $(find apps libs -mindepth 2 -maxdepth 2 -type d -name dist); do \
      mkdir -p "/out/$dist"; \
      cp -a "$dist/." "/out/$dist/"; \
    done; \
    test -f /out/apps/web/dist/main.js; \
    test -f /out/apps/worker/dist/main.js; \
    test -f /out/apps/scheduler/dist/main.js; \
    test -f /out/libs/persistence/dist/index.js; \
    mkdir -p /out/tools /out/docker; \
    cp tools/migrate.js /out/tools/migrate.js; \
    cp docker/entrypoint.sh docker/healthcheck.js /out/docker/; \
    chmod 0755 /out/docker/entrypoint.sh /out/docker/healthcheck.js

# ---------------------------------------------------------------------------------------------
# runtime: node + tini + the pruned application, running as an unprivileged user.
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime

RUN set -eux; \
    apt-get update; \
    apt-get install -y --no-install-recommends tini; \
    rm -rf /var/lib/apt/lists/*; \
    groupadd --system --gid 10001 meridian; \
    useradd --system --uid 10001 --gid 10001 --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin meridian; \
    mkdir -p /var/log/meridian /var/lib/meridian/connector-files /var/lib/meridian/scripts; \
    chown -R 10001:10001 /var/log/meridian /var/lib/meridian

# Writable locations live outside /app so the root filesystem can be mounted read-only.
ENV NODE_ENV=production \
    PORT=8080 \
    MERIDIAN_HOST=0.0.0.0 \
    MERIDIAN_LOG_DIR=/var/log/meridian \
    MERIDIAN_CONNECTOR_FILES_ROOT=/var/lib/meridian/connector-files \
    MERIDIAN_SCRIPTS_ROOT=/var/lib/meridian/scripts

WORKDIR /app
# Owned by root and read-only for the service user: the application cannot modify itself.
COPY --from=build /out /app

USER 10001:10001

EXPOSE 8080

# Detects the process it runs in: HTTP liveness for web, process state for worker/scheduler.
HEALTHCHECK --interval=30s --timeout=10s --start-period=40s --retries=3 \
  CMD ["node", "/app/docker/healthcheck.js"]

ENTRYPOINT ["/usr/bin/tini", "--", "/app/docker/entrypoint.sh"]
CMD ["web"]

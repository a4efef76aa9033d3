# syntax=docker/dockerfile:1
# One recipe for the four services; SERVICE picks one, PORT is the port it listens on:
#   docker build --build-arg SERVICE=posts-service --build-arg PORT=3001 -t community/posts-service .
# (docker-compose.yml builds all four). Stages: manifests (package files only) → build (tsc, all
# dev tools) and deps (SERVICE's production dependencies only) → runtime: plain Debian slim with the
# Node binary, the compiled JavaScript and those dependencies — no npm, no compiler, no sources, no
# tests. Measured sizes are in deploy/README.md (`npm run test:containers` builds these images).
#
# Behind a TLS-inspecting proxy, hand the build your CA bundle as a secret; it is used by npm while
# installing and never stored in a layer:
#   docker build --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt …

# Node 24 "Krypton" is the LTS line (supported to April 2028). Both stages use the same Debian
# release, so the Node binary copied into the runtime finds the same C and C++ runtime libraries.
ARG NODE_VERSION=24
ARG DEBIAN_RELEASE=bookworm

FROM node:${NODE_VERSION}-${DEBIAN_RELEASE}-slim AS manifests
WORKDIR /app
# Package files first, so the dependency layers below are rebuilt only when they change.
COPY package.json package-lock.json ./
COPY libs/access/package.json libs/access/
COPY libs/config/package.json libs/config/
COPY libs/contracts/package.json libs/contracts/
COPY libs/db/package.json libs/db/
COPY libs/events/package.json libs/events/
COPY libs/http-kit/package.json libs/http-kit/
COPY libs/logging/package.json libs/logging/
COPY libs/openapi/package.json libs/openapi/
COPY libs/sdk/package.json libs/sdk/
COPY libs/service-runtime/package.json libs/service-runtime/
COPY libs/telemetry/package.json libs/telemetry/
COPY libs/test-harness/package.json libs/test-harness/
COPY libs/workarounds/package.json libs/workarounds/
COPY posts-service/package.json posts-service/
COPY users-service/package.json users-service/
COPY webhook-service/package.json webhook-service/
COPY gateway/package.json gateway/
COPY e2e/package.json e2e/

FROM manifests AS dev-deps
# Exactly the lock file. No install script is needed to compile.
RUN --mount=type=secret,id=ca-certificates,target=/run/secrets/ca-certificates \
  if [ -s /run/secrets/ca-certificates ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates; fi \
  && npm ci --ignore-scripts --no-audit --no-fund
# The fixes of patches/ (patch-package, as `npm install` applies them through postinstall): the
# patched packages go into /out below, over the production dependencies' unpatched copies.
COPY patches patches
RUN npx --no-install patch-package --error-on-fail

FROM dev-deps AS build
COPY tsconfig.base.json tsconfig.build.json ./
COPY scripts/copy-assets.js scripts/
COPY libs libs
COPY posts-service posts-service
COPY users-service users-service
COPY webhook-service webhook-service
COPY gateway gateway
RUN npm run build
ARG SERVICE
# /out: what runs — the package.json and dist/ of every runtime library and of SERVICE, and the
# patched packages (every service uses postgres, the gateway through libs/events).
RUN test -f "${SERVICE}/dist/main.js" || { echo "build with --build-arg SERVICE=<posts-service|users-service|webhook-service|gateway>" >&2; exit 1; } \
  && for dir in libs/access libs/config libs/contracts libs/db libs/events libs/http-kit libs/logging libs/openapi libs/service-runtime libs/telemetry libs/workarounds "${SERVICE}"; do \
       mkdir -p "/out/${dir}" && cp -R "${dir}/package.json" "${dir}/dist" "/out/${dir}/"; \
     done \
  && mkdir -p /out/node_modules && cp -R node_modules/postgres /out/node_modules/ \
  && find /out -name '*.d.ts' -delete -o -name '*.tsbuildinfo' -delete

FROM manifests AS deps
ARG SERVICE
# Production dependencies of SERVICE and the libraries it links, nothing else (no test harness).
RUN --mount=type=secret,id=ca-certificates,target=/run/secrets/ca-certificates \
  if [ -s /run/secrets/ca-certificates ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates; fi \
  && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --workspace "${SERVICE}"

# The black-box suite as an image (DESIGN.md §19; deploy/compose/e2e.yml runs it): the any-stack
# files, their dependencies, the webhook receiver and the demo seeder, from sources (jest compiles
# them). `--target e2e`; it runs jest against E2E_BASE_URL and writes its reports to /reports. It
# stays root to write a bind-mounted ./reports; it is a test tool, never part of a deployment.
FROM dev-deps AS e2e
COPY tsconfig.base.json jest.config.js ./
COPY libs libs
COPY e2e/src e2e/src
COPY e2e/test/any-stack e2e/test/any-stack
COPY scripts/seed-demo.ts scripts/e2e-cleanup.ts scripts/
ENV E2E_REPORTS_DIR=/reports
CMD ["node", "node_modules/jest/bin/jest.js", "--selectProjects", "e2e", "--ci"]

FROM debian:${DEBIAN_RELEASE}-slim AS runtime
ARG SERVICE
ARG PORT=8080
# Debian slim already has the C and C++ runtimes Node links against, so nothing is installed. The user
# has a fixed numeric id so Kubernetes' runAsNonRoot can verify it.
RUN groupadd --gid 10001 app \
  && useradd --uid 10001 --gid app --no-create-home --home-dir /app --shell /usr/sbin/nologin app
COPY --from=manifests /usr/local/bin/node /usr/local/bin/node
WORKDIR /app
COPY --from=deps /app ./
COPY --from=build /out ./
COPY deploy/docker/healthcheck.js ./healthcheck.js
ENV NODE_ENV=production \
    SERVICE=${SERVICE}
# The code stays owned by root and read-only to the process.
USER 10001:10001
WORKDIR /app/${SERVICE}
EXPOSE ${PORT}
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/healthcheck.js"]
# node is PID 1 (exec form, no shell): SIGTERM reaches it directly and the service drains.
CMD ["node", "--enable-source-maps", "dist/main.js"]

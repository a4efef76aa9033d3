# shellcheck shell=bash
# The compose stack (sourced by run.sh): the four service images built from the repository's
# Dockerfile, the repository's docker-compose.yml started with a generated .env, and its teardown.

readonly IMAGE_TAG=containers-test

# docker-compose.yml with the e2e overlay (deploy/compose/e2e.yml): the settings the suite needs of
# the stack, and the e2e image that runs it. A script, so the tests that change the stack
# (e2e/test/compose-rotation) run the same command: E2E_COMPOSE_COMMAND.
write_compose_command() {
  cat >"$WORK/compose" <<SH
#!/usr/bin/env bash
exec docker-compose --project-name "$PROJECT" --project-directory "$ROOT" --env-file "$WORK/.env" \\
  --file "$ROOT/docker-compose.yml" --file "$ROOT/deploy/compose/e2e.yml" "\$@"
SH
  chmod +x "$WORK/compose"
}
compose() { "$WORK/compose" "$@"; }

# The CA bundle this machine trusts, for npm inside the build (a build secret: never in a layer).
ca_bundle() {
  local candidate
  for candidate in "${NODE_EXTRA_CA_CERTS:-}" "${SSL_CERT_FILE:-}" "$(npm config get cafile 2>/dev/null)" \
    /etc/ssl/certs/ca-certificates.crt /etc/pki/tls/certs/ca-bundle.crt /etc/ssl/cert.pem; do
    [ -n "$candidate" ] && [ "$candidate" != null ] && [ -s "$candidate" ] && echo "$candidate" && return
  done
  die "no CA bundle found (set SSL_CERT_FILE)"
}

free_port() {
  node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{process.stdout.write(String(s.address().port));s.close()})'
}

# The .env a user would write from .env.example: every change-me value replaced by 32 random bytes
# as 64 hex digits (safe in connection URLs, and the form SECRETS_KEY-style keys take). The only
# other differences: the published ports (the gateway's and the profile's Prometheus, free ones on
# loopback) and the image tag. What the black-box suite needs of the stack (TRUST_PROXY,
# WEBHOOK_ALLOW_PRIVATE_NETWORKS, FLAG_MIN_ACCOUNT_AGE_HOURS) comes from deploy/compose/e2e.yml.
write_env() {
  GATEWAY_PORT=$(free_port)
  PROMETHEUS_PORT=$(free_port)
  node - "$ROOT/.env.example" "GATEWAY_PUBLISHED_PORT=127.0.0.1:$GATEWAY_PORT" "IMAGE_TAG=$IMAGE_TAG" \
    "PROMETHEUS_PUBLISHED_PORT=$PROMETHEUS_PORT" >"$WORK/.env" <<'JS'
const { randomBytes } = require('node:crypto');
const { readFileSync } = require('node:fs');
const [example, ...settings] = process.argv.slice(2);
const overrides = new Map(settings.map((s) => [s.slice(0, s.indexOf('=')), s.slice(s.indexOf('=') + 1)]));
const env = new Map();
for (const line of readFileSync(example, 'utf8').split('\n')) {
  const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
  if (match) env.set(match[1], match[2].startsWith('change-me') ? randomBytes(32).toString('hex') : match[2]);
}
// Later entries win and keep their place: the overrides replace .env.example's lines.
for (const [name, value] of new Map([...env, ...overrides])) console.log(`${name}=${value}`);
JS
  ADMIN_USERNAME=$(sed -n 's/^ADMIN_USERNAME=//p' "$WORK/.env")
  ADMIN_PASSWORD=$(sed -n 's/^ADMIN_PASSWORD=//p' "$WORK/.env")
  if [ -z "$ADMIN_USERNAME" ] || [ -z "$ADMIN_PASSWORD" ]; then
    die ".env.example must name an admin (ADMIN_USERNAME, ADMIN_PASSWORD)"
  fi
}

# build_images: every image compose builds (the four services and the e2e image), from the
# repository's Dockerfile with compose's build arguments and target, tagged with compose's image name. podman builds them (compose v1's builder cannot pass
# build secrets); the build stage is shared, so only the first build compiles.
build_images() {
  local ca service args image started
  ca=$(ca_bundle)
  compose config | node "$HERE/lib/builds.js" >"$WORK/builds"
  while read -r service image args; do
    started=$SECONDS
    step "building $image (Dockerfile, $service)"
    # shellcheck disable=SC2086 # args is a list of --build-arg flags
    podman build --format docker --pull=never --secret "id=ca-certificates,src=$ca" $args \
      --file "$ROOT/Dockerfile" --tag "$image" "$ROOT" >"$WORK/build-$service.log" 2>&1 || {
      tail -n 40 "$WORK/build-$service.log" >&2
      die "building $image failed (log above)"
    }
    step "built $image in $((SECONDS - started)) s: $(podman image inspect --format '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}')"
  done <"$WORK/builds"
}

# The any-stack suite in the e2e image on the compose network (deploy/compose/e2e.yml); its reports
# go to ./reports/ and are checked against what jest printed.
run_e2e_image() {
  local status=0
  rm -f "$ROOT/reports/junit.xml" "$ROOT/reports/summary.md"
  step "e2e image: --profile e2e run --rm e2e (any-stack suite against gateway:8080 on the backend network)"
  bounded 900 "$WORK/compose" --profile e2e run --rm e2e </dev/null 2>&1 | tee "$WORK/e2e.log" || status=$?
  cp -R "$ROOT/reports" "$WORK/reports" 2>/dev/null || true
  npx --no-install tsx "$HERE/lib/junit-check.ts" "$ROOT/reports" "$WORK/e2e.log" "$status" ||
    die "the e2e image's reports do not match its run"
  ((status == 0)) || { cat "$ROOT/reports/summary.md" >&2; die "the e2e suite failed against the compose stack (exit $status)"; }
}

containers() { podman ps --all --filter "label=com.docker.compose.project=$PROJECT" "$@"; }

# Waits until every container of the project reports healthy.
wait_healthy() {
  local deadline=$((SECONDS + ${1:-300})) total unhealthy
  while :; do
    total=$(containers --quiet | wc -l)
    unhealthy=$(containers --format '{{.Names}} {{.Status}}' | grep -v '(healthy)' || true)
    if [ "$total" -gt 0 ] && [ -z "$unhealthy" ]; then
      step "all $total containers healthy"
      return
    fi
    ((SECONDS < deadline)) || die "not healthy after ${1:-300} s: $unhealthy"
    sleep 2
  done
}

# The address this machine has on the egress network: how webhook-service reaches the receiver.
egress_gateway() {
  podman network inspect "${PROJECT}_egress" --format '{{range .Subnets}}{{.Gateway}}{{end}}'
}

# Each container's log, without the access-log lines of answered requests (5xx lines stay).
show_logs() {
  printf '\n==== container logs (last 80 lines each, 1xx-4xx request lines left out) ====\n' >&2
  compose ps >&2 || true
  for service in $(compose --profile observability config --services 2>/dev/null); do
    printf '\n---- %s ----\n' "$service" >&2
    compose logs --no-color "$service" 2>&1 | grep -vE '"status":[1-4][0-9][0-9],.*"msg":"request"' | tail -n 80 >&2 || true
  done
}

teardown_stack() {
  step "tearing down (down -v)"
  compose --profile observability down --volumes --remove-orphans --timeout 30 >"$WORK/down.log" 2>&1 || cat "$WORK/down.log" >&2
}

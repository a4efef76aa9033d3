#!/usr/bin/env bash
# npm run test:containers — the images and the compose stack, for real (README: "Run with docker
# compose"). On this machine, as root:
#   1. installs podman, docker-compose and debootstrap from Debian when absent (lib/engine.sh);
#   2. assembles the base images once and keeps them (lib/bases.sh, stand-ins/);
#   3. builds the four service images from the repository's Dockerfile (lib/stack.sh);
#   4. starts the repository's docker-compose.yml with a generated .env, two containers of each data
#      service (`--scale`; CONTAINERS_SCALE=1: one), and waits until every container is healthy;
#   4b. runs promtool check/test on deploy/observability/rules inside the Prometheus stand-in, starts
#      the profile `observability`'s prometheus alone, and checks through its HTTP API that every
#      replica is a target that is up and every rule group is loaded (lib/observability.sh);
#   5. runs the black-box suite (e2e/test/any-stack) in the e2e image on the compose network —
#      `--profile e2e run --rm e2e` of deploy/compose/e2e.yml — and checks its JUnit report against the
#      counts jest printed (lib/junit-check.ts); then, from this machine, the compose checks
#      (e2e/test/compose-stack: only the gateway reachable, a service restarted mid-traffic);
#   5b. last, as it changes the stack's secrets: the password runbooks of docs/operations.md under
#      traffic (e2e/test/compose-rotation: each PostgreSQL role, Redis, RabbitMQ);
#   6. tears everything down (`down -v`). On failure it prints every container's log first.
# CONTAINERS_KEEP=1 leaves the stack and the engine running for a look (it prints how to reach them).
# Only loopback and the containers' own networks are ever contacted.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
STARTED=$SECONDS
PROJECT=community-ct-$$
WORK=$(mktemp -d "${TMPDIR:-/tmp}/community-containers.XXXXXX")

# bounded <seconds> <command…>: a step that hangs fails at its deadline instead of using up CI's
# time (GNU timeout signals the step's whole process group).
bounded() { timeout --kill-after=30 "$@"; }
step() { printf '[containers %4d s] %s\n' $((SECONDS - STARTED)) "$*"; }
die() {
  printf '[containers %4d s] FAILED: %s\n' $((SECONDS - STARTED)) "$*" >&2
  exit 1
}

# shellcheck source=deploy/test/containers/lib/engine.sh
source "$HERE/lib/engine.sh"
# shellcheck source=deploy/test/containers/lib/bases.sh
source "$HERE/lib/bases.sh"
# shellcheck source=deploy/test/containers/lib/stack.sh
source "$HERE/lib/stack.sh"
# shellcheck source=deploy/test/containers/lib/observability.sh
source "$HERE/lib/observability.sh"

STACK_STARTED=
finish() {
  local status=$?
  set +e
  if [ -n "$STACK_STARTED" ]; then
    ((status == 0)) || show_logs
    if [ -n "${CONTAINERS_KEEP:-}" ]; then
      step "CONTAINERS_KEEP: left running; DOCKER_HOST=$DOCKER_HOST CONTAINERS_CONF=$CONTAINERS_CONF, project $PROJECT, .env in $WORK"
      exit "$status"
    fi
    teardown_stack
  fi
  remove_isolation
  stop_engine
  rm -rf "$WORK"
  if ((status == 0)); then
    step "passed in $((SECONDS - STARTED)) s"
  else
    printf '[containers %4d s] failed (exit %d)\n' $((SECONDS - STARTED)) "$status" >&2
  fi
  exit "$status"
}
trap finish EXIT
trap 'exit 130' INT TERM

[ "$(uname -s)" = Linux ] || die "needs Linux (podman runs the containers natively)"
cd "$ROOT"

install_engine
configure_engine
start_engine_api
start_health_checks
start_bridge_pinning

node_major=$(sed -n 's/^ARG NODE_VERSION=//p' Dockerfile)
release=$(sed -n 's/^ARG DEBIAN_RELEASE=//p' Dockerfile)
if [ -z "$node_major" ] || [ -z "$release" ]; then
  die "the Dockerfile must declare ARG NODE_VERSION and ARG DEBIAN_RELEASE"
fi
assemble_debian "$release"
assemble_node "$node_major" "$release"
write_env
write_compose_command
for name in postgres redis rabbitmq; do
  build_stand_in "$name" "$(compose config | sed -n "s/^ *image: \(${name}:.*\)$/\1/p")"
done
prometheus_image=$(compose --profile observability config | sed -n 's/^ *image: \(prom\/prometheus:.*\)$/\1/p')
build_stand_in prometheus "$prometheus_image"
check_rules "$prometheus_image"

build_images

# The whole suite below runs against two of each data service sharing one database and one broker
# (issue 23; CONTAINERS_SCALE=1 for one of each). Two early scaled runs failed: one users-service
# replica could not open new PostgreSQL connections for ~20 s (CONNECT_TIMEOUT), scrypt starving the
# DNS lookups of libuv's thread pool; fixed since. Later failures alike were name lookups lost while
# a bridge changed its MAC: start_bridge_pinning (deploy/README.md, "Two of everything").
SCALE=${CONTAINERS_SCALE:-2}
export E2E_COMPOSE_SCALE=$SCALE
step "compose up (project $PROJECT, gateway on 127.0.0.1:$GATEWAY_PORT, $SCALE of each data service)"
STACK_STARTED=1
compose up --detach --no-build \
  --scale posts-service="$SCALE" --scale users-service="$SCALE" --scale webhook-service="$SCALE" \
  >"$WORK/up.log" 2>&1 || {
  cat "$WORK/up.log" >&2
  die "compose up failed"
}
wait_healthy 300
isolate_networks
check_bridges_pinned
check_prometheus

receiver_host=$(egress_gateway)
[ -n "$receiver_host" ] || die "no gateway address on ${PROJECT}_egress"
export E2E_BASE_URL="http://127.0.0.1:$GATEWAY_PORT" E2E_ADMIN_USERNAME="$ADMIN_USERNAME" E2E_ADMIN_PASSWORD="$ADMIN_PASSWORD" \
  E2E_RECEIVER_HOST="$receiver_host" E2E_RECEIVER_BIND="$receiver_host"
# On the stack as compose started it, before the e2e overlay's run recreates its services.
step "compose checks (e2e/test/compose-stack): only the gateway reachable, posts-service restarted mid-traffic"
E2E_COMPOSE_PROJECT="$PROJECT" bounded 900 npx jest --selectProjects e2e --testPathPatterns e2e/test/compose-stack </dev/null ||
  die "the compose checks failed"
run_e2e_image

step "password runbooks (e2e/test/compose-rotation): each database role, Redis, RabbitMQ, under traffic"
E2E_COMPOSE_PROJECT="$PROJECT" E2E_COMPOSE_COMMAND="$WORK/compose" E2E_COMPOSE_ENV_FILE="$WORK/.env" \
  bounded 1800 npx jest --selectProjects e2e --testPathPatterns e2e/test/compose-rotation </dev/null ||
  die "the password runbooks failed"

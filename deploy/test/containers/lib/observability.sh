# shellcheck shell=bash
# The compose profile `observability` (sourced by run.sh): promtool on the repository's rules inside
# the Prometheus image, then the profile's Prometheus against the running stack. Grafana and Jaeger
# are not started: no registry here gives their images, and Debian packages neither.

readonly RULES_DIR="$ROOT/deploy/observability/rules"

# The rule files (rules/*.yml) or, with `tests`, their promtool unit tests (rules/*.test.yml).
rule_files() {
  local file
  for file in "$RULES_DIR"/*.yml; do
    case $file in
    *.test.yml) [ "${1:-}" = tests ] && basename "$file" ;;
    *) [ "${1:-}" = tests ] || basename "$file" ;;
    esac
  done
  return 0
}

# promtool_in <image> <args…>: promtool inside the image, no network, the rules mounted read-only.
promtool_in() {
  local image=$1
  shift
  podman run --rm --pull=never --network=none --volume "$RULES_DIR:/rules:ro" --workdir /rules \
    --entrypoint promtool "$(qualified "$image")" "$@"
}

# check_rules <image>: `promtool check rules` on every rule file and `promtool test rules` on every
# unit-test file, inside the image compose names for prometheus.
check_rules() {
  local image=$1 rules tests
  mapfile -t rules < <(rule_files)
  mapfile -t tests < <(rule_files tests)
  quietly promtool-check.log promtool_in "$image" check rules "${rules[@]}"
  step "promtool check rules ${rules[*]}: $(awk '/SUCCESS: [0-9]+ rules found/ {n += $2} END {print n}' "$WORK/promtool-check.log") rules, valid"
  quietly promtool-test.log promtool_in "$image" test rules "${tests[@]}"
  step "promtool test rules ${tests[*]}: $(grep -c '^ *SUCCESS' "$WORK/promtool-test.log") of ${#tests[@]} passed"
}

# check_prometheus: starts only the profile's prometheus, waits until it is healthy, and asks its
# HTTP API until every replica of the four services is a target that is up and every rule group is
# loaded. Then removes it again: the suite's compose checks count the stack's containers.
check_prometheus() {
  local service replicas=() rules=()
  step "compose --profile observability up prometheus (127.0.0.1:$PROMETHEUS_PORT)"
  compose --profile observability up --detach --no-build prometheus >"$WORK/up-prometheus.log" 2>&1 || {
    cat "$WORK/up-prometheus.log" >&2
    die "compose up prometheus failed"
  }
  wait_healthy 120
  for service in gateway posts-service users-service webhook-service; do
    replicas+=("$service=$(containers --quiet --filter "label=com.docker.compose.service=$service" | wc -l)")
  done
  mapfile -t rules < <(rule_files | sed "s|^|$RULES_DIR/|")
  step "Prometheus: every target up (${replicas[*]}), every rule group loaded"
  node "$HERE/lib/prometheus-check.js" "http://127.0.0.1:$PROMETHEUS_PORT" "${replicas[@]}" -- "${rules[@]}" ||
    die "Prometheus does not scrape every replica or has not loaded the rules"
  compose --profile observability rm --stop --force prometheus >"$WORK/rm-prometheus.log" 2>&1 ||
    cat "$WORK/rm-prometheus.log" >&2
}

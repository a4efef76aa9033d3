# shellcheck shell=bash
# The container engine (sourced by run.sh): Debian's podman, driven through its Docker-compatible
# API so the stock docker CLI and docker-compose work unchanged. Everything it configures lives in
# $WORK (CONTAINERS_CONF, the API socket); nothing under /etc is changed.

readonly PACKAGES=(podman runc netavark aardvark-dns iptables slirp4netns fuse-overlayfs catatonit debootstrap docker-compose)

# Installs what is missing (Debian's packages; about 20 s).
install_engine() {
  local missing=()
  for tool in podman runc netavark:/usr/lib/podman/netavark aardvark-dns:/usr/lib/podman/aardvark-dns \
    iptables slirp4netns fuse-overlayfs catatonit:/usr/bin/catatonit debootstrap docker-compose; do
    local name=${tool%%:*} path=${tool#*:}
    [ "$path" = "$tool" ] && path=$name
    command -v "$path" >/dev/null || missing+=("$name")
  done
  if ((${#missing[@]})); then
    step "installing ${missing[*]}"
    [ "$(id -u)" = 0 ] || die "installing packages needs root: apt-get install ${PACKAGES[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${PACKAGES[@]}" >/dev/null
  else
    step "engine: podman $(podman --version | awk '{print $3}'), $(docker-compose version --short 2>/dev/null || echo docker-compose)"
  fi
  command -v docker >/dev/null || die "no docker CLI: install one (the podman-docker package also works)"
}

# Configures podman for this host: runc (crun refuses the mixed cgroup set-up here), cgroupfs and
# file events (no systemd), default ulimits the host allows.
configure_engine() {
  export CONTAINERS_CONF="$WORK/containers.conf"
  cat >"$CONTAINERS_CONF" <<'CONF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=4096:4096"]
[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
events_logger = "file"
CONF
}

# Serves the Docker API on a unix socket in $WORK, for the docker CLI and docker-compose.
start_engine_api() {
  export DOCKER_HOST="unix://$WORK/podman.sock"
  podman system service --time=0 "$DOCKER_HOST" >"$WORK/podman-service.log" 2>&1 &
  ENGINE_PID=$!
  for _ in $(seq 50); do
    docker version >/dev/null 2>&1 && return
    sleep 0.2
  done
  die "podman system service did not answer on $DOCKER_HOST; see $WORK/podman-service.log"
}

# Without systemd nothing runs the containers' health checks, so health would stay "starting" and
# compose's `condition: service_healthy` never fire: run them every few seconds instead.
start_health_checks() {
  (
    while sleep "${HEALTH_CHECK_EVERY:-4}"; do
      for id in $(podman ps --quiet --filter health=starting --filter health=healthy --filter health=unhealthy); do
        podman healthcheck run "$id" >/dev/null 2>&1 || true
      done
    done
  ) &
  HEALTH_PID=$!
}

# A Linux bridge whose MAC was never set takes the lowest MAC of its ports, so it changes whenever a
# container with a lower one joins or the one whose MAC it carries leaves. Every container still
# sends to the old one for the bridge's address — where aardvark-dns answers — until its neighbour
# entry fails over: name lookups are lost for 5 s to tens of seconds, and with them every new
# connection by name (PostgreSQL `CONNECT_TIMEOUT`, RabbitMQ `ETIMEDOUT`) while open ones carry on.
# Docker sets its bridges' MAC, and so does netavark since 1.9 (containers/netavark#833); Debian's
# netavark 1.4 does not. So each podman bridge gets its MAC set, to the one it has, as soon as it
# appears (netavark names them podman<N>; they go with their networks at teardown).
start_bridge_pinning() {
  (
    while sleep 0.2; do
      for dev in /sys/class/net/podman*; do
        [ -d "$dev/bridge" ] && [ "$(cat "$dev/addr_assign_type")" != 3 ] || continue
        ip link set dev "${dev##*/}" address "$(cat "$dev/address")" 2>/dev/null || true
      done
    done
  ) &
  PINNING_PID=$!
}

# Fails unless every bridge of the project's networks has its MAC set (start_bridge_pinning).
check_bridges_pinned() {
  local network dev pinned=()
  for network in $(podman network ls --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Name}}'); do
    dev=$(podman network inspect "$network" --format '{{.NetworkInterface}}')
    # No bridge until a container joins: the profile `observability`'s network, before it starts.
    [ -e "/sys/class/net/$dev" ] || continue
    [ "$(cat "/sys/class/net/$dev/addr_assign_type" 2>/dev/null)" = 3 ] || die "bridge $dev of $network: MAC not set"
    pinned+=("$dev ($(cat "/sys/class/net/$dev/address"))")
  done
  ((${#pinned[@]})) || die "no bridge found for the project's networks"
  step "bridges keep their MAC: ${pinned[*]}"
}

# Docker keeps a project's bridge networks apart (its DOCKER-ISOLATION chains): a container on one
# cannot reach another's addresses. netavark does so only for networks created with `isolate=true`,
# which compose v1 cannot pass through podman 4.3 (the option is not reported back, so every later
# `up` wants the network recreated), and which, tried by creating the networks first, lost the edge
# network's rules during the run. So the runner adds Docker's rule itself, for the project's bridges,
# in a chain of its own that teardown removes. Without it a client on edge reaches webhook-service by
# its egress address (e2e/test/compose-stack).
isolate_networks() {
  local chain="COMMUNITY-ISOLATION-$$" bridges=() network from to
  for network in $(podman network ls --filter "label=com.docker.compose.project=$PROJECT" --format '{{.Name}}'); do
    bridges+=("$(podman network inspect "$network" --format '{{.NetworkInterface}}')")
  done
  ((${#bridges[@]} > 1)) || die "expected the project's networks, found ${bridges[*]:-none}"
  iptables -N "$chain"
  ISOLATION_CHAIN=$chain
  for from in "${bridges[@]}"; do
    for to in "${bridges[@]}"; do
      [ "$from" = "$to" ] || iptables -A "$chain" -i "$from" -o "$to" -j DROP
    done
  done
  iptables -I FORWARD 1 -j "$chain"
  step "networks kept apart as Docker keeps them: ${bridges[*]}"
}

remove_isolation() {
  [ -n "${ISOLATION_CHAIN:-}" ] || return 0
  iptables -D FORWARD -j "$ISOLATION_CHAIN" 2>/dev/null
  iptables -F "$ISOLATION_CHAIN" 2>/dev/null
  iptables -X "$ISOLATION_CHAIN" 2>/dev/null
  ISOLATION_CHAIN=
}

stop_engine() {
  [ -n "${PINNING_PID:-}" ] && kill "$PINNING_PID" 2>/dev/null
  [ -n "${HEALTH_PID:-}" ] && kill "$HEALTH_PID" 2>/dev/null
  [ -n "${ENGINE_PID:-}" ] && kill "$ENGINE_PID" 2>/dev/null
  wait 2>/dev/null || true
}

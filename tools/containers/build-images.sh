#!/usr/bin/env bash
# Builds the platform's four images with their real Dockerfiles, tagged as docker-compose.yml
# names them (localhost/course-platform/<service>:${IMAGE_TAG:-local}), on NODE_IMAGE
# (default: the official node:24-bookworm-slim; CI passes its local stand-in). The app images
# share their first build steps, so the workspace install is built once and reused.
#
#   NODE_IMAGE=course-platform-local/node:24 bash tools/containers/build-images.sh
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DOCKER=${DOCKER:-/usr/bin/docker}
NODE_IMAGE=${NODE_IMAGE:-node:24-bookworm-slim}
TAG=${IMAGE_TAG:-local}
export DOCKER_BUILDKIT=${DOCKER_BUILDKIT:-0}

build() { # service, Dockerfile
  local start=$SECONDS
  echo "build-images: $1 ($2, NODE_IMAGE=$NODE_IMAGE)" >&2
  "$DOCKER" build --build-arg "NODE_IMAGE=$NODE_IMAGE" -f "$ROOT/$2" -t "localhost/course-platform/$1:$TAG" "$ROOT" \
    >"${BUILD_LOG_DIR:-/tmp}/build-$1.log" 2>&1 \
    || { tail -n 40 "${BUILD_LOG_DIR:-/tmp}/build-$1.log" >&2; echo "build-images: $1 failed" >&2; return 1; }
  echo "build-images: $1 built in $((SECONDS - start)) s" >&2
}

build migrate tools/containers/migrate.Dockerfile
build auth-server apps/auth-server/Dockerfile
build resource-server apps/resource-server/Dockerfile
build gateway apps/gateway/Dockerfile

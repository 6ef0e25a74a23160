#!/bin/bash
# Runs redis-server as the redis user. Like the official image's entrypoint, a server started
# without a configuration file gets --protected-mode no: otherwise Redis refuses clients from
# other containers (only loopback is "protected"); the compose network is the boundary.
set -euo pipefail
if [[ ${1:-} == redis-server ]]; then
  shift
  set -- redis-server --protected-mode no "$@"
  if [[ $(id -u) == 0 ]]; then exec setpriv --reuid=redis --regid=redis --init-groups "$@"; fi
fi
exec "$@"

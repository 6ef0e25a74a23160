#!/bin/bash
# Initialises $PGDATA on first start (superuser $POSTGRES_USER with $POSTGRES_PASSWORD,
# scram-sha-256 for every TCP connection, database $POSTGRES_DB), then runs the server as the
# postgres user. A subset of the official image's entrypoint: no /docker-entrypoint-initdb.d.
set -euo pipefail
: "${POSTGRES_USER:=postgres}" "${POSTGRES_DB:=$POSTGRES_USER}"
if [[ ${1:-} != postgres ]]; then exec "$@"; fi
if [[ $(id -u) == 0 ]]; then
  mkdir -p "$PGDATA" && chown postgres:postgres "$PGDATA" && chmod 0700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
if [[ ! -s $PGDATA/PG_VERSION ]]; then
  if [[ -z ${POSTGRES_PASSWORD:-} ]]; then echo "entrypoint: POSTGRES_PASSWORD is required" >&2; exit 1; fi
  pwfile=$(mktemp)
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$POSTGRES_USER" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [[ $POSTGRES_DB != postgres ]]; then
    postgres --single -D "$PGDATA" postgres <<<"CREATE DATABASE \"$POSTGRES_DB\";" >/dev/null
  fi
  echo "entrypoint: initialised $PGDATA"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "${@:2}"

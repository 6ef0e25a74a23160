#!/usr/bin/env bash
# A Docker engine for CI on a machine without systemd: starts Debian's dockerd in the
# background and, on stop, stops it by its pid and puts the host back as it was.
#
#   bash tools/containers/dockerd.sh start   # idempotent: reuses an engine that already answers
#   bash tools/containers/dockerd.sh stop    # only stops an engine this script started
#
# dockerd changes the host and leaves the changes behind when it stops (STACK.md): iptables
# chains DOCKER* (filter and nat) and the jumps to them, the FORWARD policy (DROP when it turns
# forwarding on), the docker0 bridge and net.ipv4.ip_forward. `start` records what was there;
# `stop` removes what dockerd added and restores the recorded values. Runs as root.
# Image layers stay in /var/lib/docker between runs (the base-image cache of base-images.sh).
set -euo pipefail

STATE_DIR=${DOCKERD_STATE_DIR:-/run/course-platform-dockerd}
DOCKER=${DOCKER:-/usr/bin/docker}
LOG=${DOCKERD_LOG:-/tmp/course-platform-dockerd.log}
PIDFILE=/var/run/docker.pid

log() { echo "dockerd.sh: $*" >&2; }

engine_answers() { "$DOCKER" info --format '{{.ServerVersion}}' >/dev/null 2>&1; }

start() {
  if engine_answers; then
    log "a Docker engine already answers; using it (stop will leave it running)"
    return
  fi
  mkdir -p "$STATE_DIR"
  sysctl -n net.ipv4.ip_forward >"$STATE_DIR/ip_forward"
  iptables -t filter -S >"$STATE_DIR/rules.filter"
  iptables -t nat -S >"$STATE_DIR/rules.nat"
  iptables -S FORWARD | awk '$1 == "-P" { print $3; exit }' >"$STATE_DIR/forward_policy"
  ip -o link show | awk -F': ' '{ sub(/@.*/, "", $2); print $2 }' >"$STATE_DIR/links"
  log "starting /usr/sbin/dockerd (log: $LOG)"
  setsid /usr/sbin/dockerd --pidfile "$PIDFILE" >"$LOG" 2>&1 </dev/null &
  echo $! >"$STATE_DIR/pid"
  for _ in $(seq 1 120); do
    if engine_answers; then
      log "Docker $("$DOCKER" info --format '{{.ServerVersion}} ({{.Driver}}, cgroup v{{.CgroupVersion}})')"
      return
    fi
    kill -0 "$(cat "$STATE_DIR/pid")" 2>/dev/null || break
    sleep 0.5
  done
  log "dockerd did not answer; last lines of $LOG:"
  tail -n 20 "$LOG" >&2
  stop
  return 1
}

# The rules dockerd added to the built-in chains of TABLE (new since start, and about Docker:
# a jump to a DOCKER* chain, or docker0 / a br-<id> bridge), then its DOCKER* chains.
remove_docker_rules() {
  local table=$1 rule chain
  iptables -t "$table" -S 2>/dev/null \
    | grep -E '^-A (INPUT|FORWARD|OUTPUT|PREROUTING|POSTROUTING) ' \
    | grep -E -- '-j DOCKER|docker0|br-[0-9a-f]{12}' \
    | grep -vxF -f "$STATE_DIR/rules.$table" \
    | while read -r rule; do
        # shellcheck disable=SC2086 # the rule's words are iptables arguments
        eval iptables -t "$table" ${rule/-A/-D} || true
      done
  for chain in $(iptables -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^DOCKER/ { print $2 }'); do
    iptables -t "$table" -F "$chain" || true
  done
  for chain in $(iptables -t "$table" -S 2>/dev/null | awk '$1 == "-N" && $2 ~ /^DOCKER/ { print $2 }'); do
    iptables -t "$table" -X "$chain" || true
  done
}

stop() {
  if [[ ! -f $STATE_DIR/pid ]]; then
    log "no engine started by this script; nothing to stop"
    return
  fi
  local pid
  pid=$(cat "$STATE_DIR/pid")
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then
      log "dockerd ($pid) still running after 30 s; SIGKILL"
      kill -KILL "$pid" || true
    fi
  fi
  remove_docker_rules filter
  remove_docker_rules nat
  if [[ -s $STATE_DIR/forward_policy ]]; then iptables -P FORWARD "$(cat "$STATE_DIR/forward_policy")"; fi
  # Bridges dockerd created (docker0, br-<network id>) that are still there.
  local link
  for link in $(ip -o link show type bridge | awk -F': ' '{ print $2 }'); do
    if [[ ($link == docker0 || $link == br-*) ]] && ! grep -qx "$link" "$STATE_DIR/links"; then
      ip link delete "$link" || true
    fi
  done
  if [[ -s $STATE_DIR/ip_forward ]]; then sysctl -qw "net.ipv4.ip_forward=$(cat "$STATE_DIR/ip_forward")"; fi
  rm -rf "$STATE_DIR"
  log "stopped; iptables DOCKER chains, bridges and ip_forward restored"
}

case ${1:-} in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop" >&2; exit 2 ;;
esac

#!/bin/bash
# The main process of every Aryl worker container: runs the worker command (its arguments) as a child and keeps the
# container, and its GPUs, from one generation to the next. YARN can re-initialise a container with the next
# generation's launch context only while its main process runs, and a container whose main process exits is gone.
#
# - SIGTERM (the ApplicationMaster's GRACEFUL_SHUTDOWN, which the NodeManager sends to the container's whole process
#   group, the worker's processes included) only marks the worker as told to stop: this script keeps running.
# - The worker exits 0 without having been told to stop: training is done; this script exits 0, the container ends.
# - Otherwise, once the worker has exited (after SIGTERM: once every process it left in the group has exited, e.g. a
#   python still checkpointing under the worker's shell), it reports the exit status to the ApplicationMaster
#   (POST ${ARYL_AM_URL}exited) and stays, idle, until the ApplicationMaster re-initialises the container with the next
#   generation or releases it. A failure it cannot report ends the container with the worker's status instead, so that
#   the ApplicationMaster learns of it from YARN.
#
# Environment: CONTAINER_ID (YARN's), ARYL_GENERATION, ARYL_AM_URL, ARYL_REPORT_TOKEN (set by the ApplicationMaster).

told_to_stop=0
trap 'told_to_stop=1' TERM

log() {
  echo "aryl-supervise: $(date -u +%Y-%m-%dT%H:%M:%S.%3NZ) $*" >&2
}

if [ $# -eq 0 ]; then
  log "usage: aryl-supervise.sh COMMAND..."
  exit 2
fi

# The process group of a pid, from /proc (fields after "pid (comm) ": state, ppid, pgrp, ...); empty without /proc.
process_group() {
  local s
  read -r s < "/proc/$1/stat" 2>/dev/null || return 1
  s=${s##*) }
  set -- $s
  echo "$3"
}

# This script's group: the NodeManager starts the container's main process as a session (and group) leader, and the
# worker's processes stay in it unless they leave it themselves.
group=$(process_group $$)

# True while a process other than this script is alive in its process group. Reads /proc without starting any
# process, so that nothing of its own is counted. Zombies are not counted: they are gone but for their parent's wait.
others_in_group() {
  local d s
  [ -n "$group" ] || return 1
  for d in /proc/[0-9]*; do
    [ "${d#/proc/}" = "$$" ] && continue
    read -r s < "$d/stat" 2>/dev/null || continue
    s=${s##*) }
    set -- $s
    [ "$1" != Z ] && [ "$3" = "$group" ] && return 0
  done
  return 1
}

# POST ${ARYL_AM_URL}exited with the worker's status; true once the ApplicationMaster answered 200.
report() {
  local url=${ARYL_AM_URL%/} hostport path line attempt
  hostport=${url#http://}
  hostport=${hostport%%/*}
  path="/exited?container=${CONTAINER_ID}&generation=${ARYL_GENERATION}&status=$1&stopped=$2"
  [ -n "$ARYL_AM_URL" ] && [ -n "$CONTAINER_ID" ] || return 1
  for attempt in 1 2 3; do
    # bash's /dev/tcp needs no HTTP client in the container; timeout bounds a connect to a host that is gone.
    line=$(timeout 10 bash -c 'exec 3<>"/dev/tcp/${1%:*}/${1##*:}" || exit 1
        printf "POST %s HTTP/1.0\r\nHost: %s\r\nX-Aryl-Token: %s\r\nContent-Length: 0\r\n\r\n" "$2" "$1" "$3" >&3
        IFS= read -r line <&3 && printf "%s" "$line"' report "$hostport" "$path" "$ARYL_REPORT_TOKEN" 2>/dev/null)
    case $line in
      "HTTP/1."?" 200"*) return 0 ;;
    esac
    log "report to $url failed (attempt $attempt of 3): ${line:-no answer}"
    sleep 1
  done
  return 1
}

"$@" &
worker=$!

# wait returns early (status > 128) when SIGTERM arrives, and the worker may still run: wait again while it does.
# One more wait gives the status of a worker that exited just then; bash answers 127 or -1 when it has none left.
status=0
while kill -0 "$worker" 2>/dev/null; do
  wait "$worker"
  status=$?
done
wait "$worker" 2>/dev/null
last=$?
if [ "$last" -ge 0 ] && [ "$last" -ne 127 ]; then
  status=$last
fi

if [ "$status" -eq 0 ] && [ "$told_to_stop" -eq 0 ]; then
  log "the worker exited 0: training is done"
  exit 0
fi
if [ "$told_to_stop" -eq 1 ]; then
  while others_in_group; do
    sleep 0.1
  done
fi
log "the worker exited with status $status$([ "$told_to_stop" -eq 1 ] && echo ' after SIGTERM')"
if ! report "$status" "$told_to_stop" && [ "$told_to_stop" -eq 0 ]; then
  log "the ApplicationMaster did not take the report: the container ends with the worker's status $status"
  exit "$status"
fi
log "idle until the next generation or the release of the container"
while :; do
  sleep 3600
done

#!/bin/bash
# Stop and/or start the slurmctld of the cluster tests/slurm/start.sh made under $BASE.
# Usage: restart-ctld.sh start|stop|restart
#   stop     SIGTERM to the recorded slurmctld PID (SIGKILL after 10 s); its state is saved
#   start    start slurmctld on $BASE/etc/slurm.conf (recovering saved state), wait until it
#            answers and, when slurmd run, until no node is in state UNKNOWN any more (they
#            re-register within a few seconds; before that steps cannot start on them)
#   restart  stop, then start
# Only the PID recorded in $BASE/pid/slurmctld.pid is signalled, and only while that process
# still runs $BASE/bin/slurmctld (a reused PID is left alone).
set -euo pipefail
BASE=${BASE:-/tmp/topo-sched-slurm}
export SLURM_CONF=$BASE/etc/slurm.conf PATH=$PATH:/usr/sbin
die() { echo "restart-ctld.sh: $*" >&2; exit 1; }
ours() {   # PID $1 runs $BASE/bin/$2?
  local a0=""
  [ -n "$1" ] && { read -r -d '' a0 < "/proc/$1/cmdline"; } 2>/dev/null || true
  [ "$a0" = "$BASE/bin/$2" ]
}
stop() {
  local p i
  p=$(cat "$BASE/pid/slurmctld.pid" 2>/dev/null || true)
  ours "$p" slurmctld || { echo "restart-ctld.sh: no slurmctld of $BASE running"; return 0; }
  kill -TERM "$p"
  for ((i = 0; i < 100; i++)); do ours "$p" slurmctld || return 0; sleep 0.1; done
  kill -KILL "$p" 2>/dev/null || true
  for ((i = 0; i < 20; i++)); do ours "$p" slurmctld || return 0; sleep 0.1; done
  die "slurmctld $p did not stop"
}
start() {
  local i
  [ -f "$SLURM_CONF" ] || die "$SLURM_CONF missing (run start.sh first)"
  # -i: a state file from a killed controller may be incomplete; start anyway
  "$BASE/bin/slurmctld" -f "$SLURM_CONF" -i
  for ((i = 0; i < 100; i++)); do
    scontrol ping 2>/dev/null | grep -q 'is UP' && break
    sleep 0.2
  done
  scontrol ping 2>/dev/null | grep -q 'is UP' || { tail -5 "$BASE/log/slurmctld.log" >&2; die "slurmctld did not answer within 20 s"; }
  ls "$BASE"/pid/slurmd.*.pid >/dev/null 2>&1 || return 0
  for ((i = 0; i < 150; i++)); do
    [ -z "$(sinfo -h -t unknown -o %D 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  die "nodes still UNKNOWN 30 s after slurmctld started"
}
case ${1:-} in
  start) start;;
  stop) stop;;
  restart) stop; start;;
  *) die "usage: restart-ctld.sh start|stop|restart";;
esac

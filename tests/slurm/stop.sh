#!/bin/bash
# Stop the cluster tests/slurm/start.sh started under $BASE. Signals only the PIDs recorded
# under $BASE/pid while they still run this cluster's programs ($BASE/bin/slurm*, munged on
# $BASE's socket), plus the step daemons and job processes those slurmd started (found by
# SLURM_CONF=$BASE/etc/slurm.conf in their environment). Safe to run twice or on a half-started
# cluster. Env: BASE (/tmp/topo-sched-slurm), GRACEFUL=1 (cancel the jobs first, at most 5 s).
set -uo pipefail
BASE=${BASE:-/tmp/topo-sched-slurm}
export SLURM_CONF=$BASE/etc/slurm.conf PATH=$PATH:/usr/sbin
T0=${EPOCHREALTIME/./}
say() { local us=$(( ${EPOCHREALTIME/./} - T0 )); printf '[%d.%02ds] %s\n' $((us / 1000000)) $((us % 1000000 / 10000)) "$*"; }
# A0 = argv[0] of process $1 ("" when gone); no subshell: stop.sh reads one per node.
argv0() { A0=""; [ -n "$1" ] && { read -r -d '' A0 < "/proc/$1/cmdline"; } 2>/dev/null; return 0; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }
[ -d "$BASE/pid" ] || { say "nothing under $BASE"; exit 0; }

# All PIDs first: the daemons remove their pid files when they exit.
ctld="" munge="" slurmds="" p=""
read -r ctld 2>/dev/null < "$BASE/pid/slurmctld.pid"
read -r munge 2>/dev/null < "$BASE/pid/munged.pid"
argv0 "$ctld"; [ "$A0" = "$BASE/bin/slurmctld" ] || ctld=""
for f in "$BASE"/pid/slurmd.*.pid; do
  [ -f "$f" ] || continue
  p=""; read -r p 2>/dev/null < "$f"
  argv0 "$p"; [ "$A0" = "$BASE/bin/slurmd" ] && slurmds="$slurmds $p"
done

if [ -n "$ctld" ] && [ "${GRACEFUL:-0}" = 1 ]; then   # let running jobs end cleanly (at most ~5 s)
  timeout 5 scancel --full --user=root >/dev/null 2>&1
  for ((i = 0; i < 25; i++)); do
    [ -z "$(timeout 2 squeue -h -t R,CG,S -o %i 2>/dev/null)" ] && break
    sleep 0.2
  done
fi
# slurmctld first, while the slurmd still answer (with them gone its exit waits on RPC
# timeouts); it saves its state on SIGTERM. slurmd has nothing to save and takes ~1.5 s each to
# exit on SIGTERM: SIGKILL (their step daemons and jobs are killed below).
wait_gone() {
  local p i left=""
  for ((i = 0; i < 100; i++)); do
    left=""; for p in "$@"; do alive "$p" && left="$left $p"; done
    [ -z "$left" ] && return 0; sleep 0.1
  done
  for p in $left; do kill -KILL "$p" 2>/dev/null; done
}
if [ -n "$ctld" ]; then kill -TERM "$ctld" 2>/dev/null; wait_gone $ctld; fi
for p in $slurmds; do kill -KILL "$p" 2>/dev/null; done
mine=""
if alive "$munge" && grep -qzxF -- "--socket=$BASE/munge/munge.sock" "/proc/$munge/cmdline" 2>/dev/null; then
  mine=$munge; kill -TERM "$munge"
fi
wait_gone $slurmds $mine
say "slurmctld, $(echo $slurmds | wc -w) slurmd and munged stopped"

# Step daemons (they rename themselves: known by their command name), forks of slurmd, a
# slurmscriptd left by a SIGKILLed slurmctld, and job processes (SLURMD_NODENAME set) of this
# cluster: all inherit SLURM_CONF from our daemons. Other processes with that SLURM_CONF (the
# caller, the placer) are left alone. Few process spawns: they are slow on a loaded machine.
n_left=0
for sweep in 1 2; do   # twice: a job script may have forked while the first sweep ran
  files=$(grep -lzx "SLURM_CONF=$SLURM_CONF" /proc/[0-9]*/environ 2>/dev/null)
  [ -n "$files" ] || break
  kill_pids=()
  for f in $(grep -lz '^SLURMD_NODENAME=' $files 2>/dev/null); do
    p=${f#/proc/}; p=${p%/environ}; [ "$p" = $$ ] || kill_pids+=("$p")
  done
  for f in $files; do
    p=${f#/proc/}; p=${p%/environ}; c=""
    read -r c 2>/dev/null < "/proc/$p/comm"
    case $c in slurmstepd|slurmd|slurmctld) [ "$p" = $$ ] || kill_pids+=("$p");; esac
  done
  [ ${#kill_pids[@]} -gt 0 ] || break
  kill -KILL "${kill_pids[@]}" 2>/dev/null
  n_left=$((n_left + ${#kill_pids[@]}))
done
[ "$n_left" = 0 ] || say "killed $n_left step daemons and job processes"

rm -f "$BASE"/pid/*.pid
say "stopped"

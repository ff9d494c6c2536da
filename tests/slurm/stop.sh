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

n_left=0
# Step daemons (they rename themselves: known by their executable), forks of slurmd, a
# slurmscriptd left by a SIGKILLed slurmctld, and job processes of this cluster: all inherit
# SLURM_CONF from our daemons. Other processes with that SLURM_CONF (the caller, the placer)
# are left alone.
stepd_exe=$(readlink -f "$BASE/bin/slurmstepd" 2>/dev/null)
slurmd_exe=$(readlink -f "$BASE/bin/slurmd" 2>/dev/null)
ctld_exe=$(readlink -f "$BASE/bin/slurmctld" 2>/dev/null)
for sweep in 1 2; do   # twice: a job script may have forked while the first sweep ran
for f in $(grep -lzx "SLURM_CONF=$SLURM_CONF" /proc/[0-9]*/environ 2>/dev/null); do
  d=${f%/environ}; p=${d#/proc/}
  [ "$p" = $$ ] && continue
  exe=$(readlink "$d/exe" 2>/dev/null)
  if [ -n "$exe" ] && { [ "$exe" = "$stepd_exe" ] || [ "$exe" = "$slurmd_exe" ] || [ "$exe" = "$ctld_exe" ]; } || \
     { grep -qz '^SLURM_JOB_ID=' "$f" 2>/dev/null && grep -qz '^SLURMD_NODENAME=' "$f" 2>/dev/null; }; then
    kill -KILL "$p" 2>/dev/null && n_left=$((n_left + 1))
  fi
done
done
[ "$n_left" = 0 ] || say "killed $n_left step daemons and job processes"

rm -f "$BASE"/pid/*.pid
say "stopped"

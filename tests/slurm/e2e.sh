#!/bin/bash
# End-to-end test of topo-sched-slurm against real Slurm daemons (issue 24, doc/slurm.md):
# starts munged, slurmctld and 64 slurmd on loopback (8 leaves x 8 nodes, 2 spines under a
# root, gpu:8 per node: tests/slurm/start.sh), occupies whole and part leaves, drains a node,
# submits held opt-in jobs of several shapes plus held jobs that must not be placed, runs the
# placer, and checks that
#   - each opt-in job runs (RUNNING, then COMPLETED) on exactly the nodes that
#     `topo-sched place` gives on the fabric and job the placer dumped, the placer's dump agrees
#     with an independent offline import (`topology import-slurm topology.conf --nodes-json
#     <sinfo --json>`; 22.05's scontrol has no --json), and a job placed later in the same
#     cycle sees the earlier jobs' nodes taken;
#   - `topo-sched-slurm state` and `topo-sched topology import-slurm-live` give the offline
#     import's bytes;
#   - the hostfile is `topo-sched place --hostfile`'s, and srun inside the job
#     (SLURM_HOSTFILE + --distribution=arbitrary) runs rank i on line i;
#   - the drained node is never chosen; a held job without the tag is never touched; an
#     infeasible job and one with a bad tag stay held with the reason in their admin comment;
#   - a placer that dies before releasing (test hook) leaves its job held without required
#     nodes, and a later cycle places it;
#   - the `run` daemon logs a failed cycle while slurmctld is down and places a job submitted
#     after the controller's restart;
#   - --reserve-horizon (Arnold App. G): a held job beginning in 10 minutes gets nodes reserved
#     and stays held; a job that fits outside them is placed outside them, one that does not
#     but ends first is placed, one that neither fits nor ends first stays held (delayed);
#     without the option the same jobs are placed as before (dry run).
# Everything it starts is stopped by PID (trap). Exit 77 (skip) without root or Slurm.
# Usage: e2e.sh TOPO_SCHED TOPO_SCHED_SLURM
# Env: BASE (/tmp/topo-sched-slurm-e2e), CTLD_PORT (26817), NODE_PORT0 (27000..27063).
set -euo pipefail
T0=${EPOCHREALTIME/./}
HERE=$(cd "$(dirname "$0")" && pwd)
skip() { echo "SKIP: $*"; exit 77; }
[ $# -eq 2 ] || { echo "usage: e2e.sh TOPO_SCHED TOPO_SCHED_SLURM" >&2; exit 2; }
TS=$1 TSS=$2
export PATH=$PATH:/usr/sbin
[ "$(id -u)" = 0 ] || skip "needs root: the emulated cluster runs slurmctld and one slurmd per node as root"
for c in slurmctld slurmd slurmstepd munged mungekey sbatch scontrol squeue sinfo srun scancel; do
  command -v $c >/dev/null || skip "$c not installed (apt-get install slurmctld slurmd slurm-client munge)"
done
command -v python3 >/dev/null || skip "python3 not installed (reads the JSON of squeue and the dumps)"
# The interpreter itself, not a wrapper (a pyenv shim costs a second per call).
PY=$(python3 -c 'import sys; print(sys.executable)')
[ -x "$TS" ] || { echo "FAIL: $TS is not executable" >&2; exit 1; }
[ -x "$TSS" ] || { echo "FAIL: $TSS is not executable" >&2; exit 1; }

# Run inside a job of another Slurm cluster, its SLURM_*/SBATCH_* settings would steer our
# commands (and mark this shell as one of our jobs' processes for stop.sh): drop them.
for v in $(compgen -e | grep -E '^(SLURM|SLURMD|SBATCH|SRUN|SALLOC|SQUEUE|SINFO|SCONTROL)_' || true); do unset "$v"; done
export BASE=${BASE:-/tmp/topo-sched-slurm-e2e}
export CTLD_PORT=${CTLD_PORT:-26817} NODE_PORT0=${NODE_PORT0:-27000} NODES=64
# A stopped controller is found unreachable after about MessageTimeout - 1 s: keep it short.
export MSG_TIMEOUT=4
export SLURM_CONF=$BASE/etc/slurm.conf
W=$BASE/e2e
DAEMON=""
CHECKS=0

elapsed() { local us=$(( ${EPOCHREALTIME/./} - T0 )); printf '%d.%01d' $((us / 1000000)) $((us % 1000000 / 100000)); }
say() { echo "[$(elapsed)s] $*"; }
ok() { CHECKS=$((CHECKS + 1)); echo "[$(elapsed)s] ok $CHECKS: $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }
py() { "$PY" "$HERE/e2e_check.py" "$@"; }
# Sets state prio req nodes admin comment of job $1 from the last squeue --json ($W/sq.json).
jv() { local v; v=$(py vars "$W/sq.json" "$1") || fail "$v"; eval "$v"; }
refresh() { squeue --json > "$W/sq.json" || fail "squeue --json failed"; }
daemon_alive() {   # the run daemon still runs (not exited, not a zombie)
  local s; s=$(sed 's/.*) //' "/proc/$DAEMON/stat" 2>/dev/null | cut -d' ' -f1)
  [ -n "$s" ] && [ "$s" != Z ]
}
# SIGTERM to the run daemon, SIGKILL after 15 s; sets DAEMON_RC to its exit status.
stop_daemon() {
  local i
  DAEMON_RC=""
  [ -n "$DAEMON" ] || return 0
  kill -TERM "$DAEMON" 2>/dev/null
  for ((i = 0; i < 150; i++)); do daemon_alive || break; sleep 0.1; done
  daemon_alive && kill -KILL "$DAEMON" 2>/dev/null
  DAEMON_RC=0; wait "$DAEMON" || DAEMON_RC=$?
  DAEMON=""
}
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_daemon
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -d "$W" ]; then
    echo "--- diagnostics (work files in $W)"
    squeue --json > "$W/final.json" 2>/dev/null && py jobs "$W/final.json" $("$PY" -c \
      'import json,sys; print(" ".join(str(j["job_id"]) for j in json.load(open(sys.argv[1]))["jobs"]))' "$W/final.json") || true
    for f in "$W"/*.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done
    echo "--- slurmctld.log"; tail -n 15 "$BASE/log/slurmctld.log" 2>/dev/null || true
  fi
  [ "$rc" -eq 77 ] || { echo "--- stopping the cluster"; "$HERE/stop.sh" || true; }
  echo "slurm-e2e: exit $rc after $(elapsed) s"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Waits until every job given is in STATE (squeue --json), at most T seconds.
wait_jobs() {
  local st=$1 t=$2; shift 2
  local end=$((SECONDS + t))
  local rc
  while :; do
    if squeue --json > "$W/sq.json" 2>/dev/null; then
      rc=0; py states "$W/sq.json" "$st" "$@" || rc=$?
      [ $rc = 0 ] && return 0
      [ $rc = 3 ] || fail "waiting for $st"
    fi
    [ $SECONDS -lt $end ] || { py jobs "$W/sq.json" "$@" || true; fail "jobs $* not $st after ${t} s"; }
    sleep 0.3
  done
}
# Held opt-in (or not) job: sub NODES COMMENT [SBATCH OPTIONS...]; prints the job id.
sub() {
  local id n=$1 c=$2
  shift 2
  id=$(sbatch --parsable --hold --exclusive -N "$n" --comment "$c" "$@" -o "$W/out/%j.out" "$W/job.sh" "$W") || fail "sbatch -N $n failed"
  echo "${id%%;*}"
}

# ---------------------------------------------------------------- the cluster
"$HERE/start.sh" > "$BASE.start.log" 2>&1 || { cat "$BASE.start.log"; fail "start.sh failed"; }
mkdir -p "$W"/{out,hosts,dump,replay}
mv "$BASE.start.log" "$W/start.log"
say "cluster of $NODES nodes up (ports $CTLD_PORT, $NODE_PORT0-$((NODE_PORT0 + NODES - 1)))"
# Job script: wait for the test's go signal, then one task per hostfile line through srun,
# each printing its node; the output sorted by rank.
cat > "$W/job.sh" <<'EOF'
#!/bin/bash
W=$1
for ((i = 0; i < 900; i++)); do [ -e "$W/go" ] && break; sleep 0.2; done
[ -e "$W/go" ] || exit 3
SLURM_HOSTFILE=$W/hosts/$SLURM_JOB_ID.hosts srun -l -n "$SLURM_JOB_NUM_NODES" --distribution=arbitrary \
  bash -c 'echo $SLURMD_NODENAME' > "$W/out/$SLURM_JOB_ID.raw"
sort -n "$W/out/$SLURM_JOB_ID.raw" | sed 's/^ *[0-9]*: //' > "$W/out/$SLURM_JOB_ID.ranks"
EOF
chmod +x "$W/job.sh"

# ---------------------------------------------------------------- background load
# leaf0 whole (GPUs asked), 3 nodes of leaf1 and half of leaf5 (exclusive, no GPUs asked:
# Slurm still gives them all 8), one GPU of n20 (the node is MIXED: 7 free GPUs), n17 drained.
bg=""
bg="$bg $(sbatch --parsable --exclusive --gres=gpu:8 -N 8 -w 'n[0-7]' -o /dev/null --wrap 'sleep 600')"
bg="$bg $(sbatch --parsable --exclusive -N 3 -w 'n[8-10]' -o /dev/null --wrap 'sleep 600')"
bg="$bg $(sbatch --parsable --exclusive -N 4 -w 'n[40-43]' -o /dev/null --wrap 'sleep 600')"
bg="$bg $(sbatch --parsable --gres=gpu:1 -N 1 -w n20 -o /dev/null --wrap 'sleep 600')"
scontrol update NodeName=n17 State=DRAIN Reason=e2e-drained
DRAINED=n17 MIXED=n20
wait_jobs RUNNING 30 $bg
say "background jobs running:$bg; $DRAINED drained"

# ---------------------------------------------------------------- held jobs
# In job-id order (the placer's order): opt-in shapes interleaved with jobs it must not place.
JA=$(sub 16 'topo-sched:tp=8,pp=4')                      # 128 GPUs: dp=4 x pp=4 x tp=8
JB=$(sub 8 'topo-sched:tp=8,pp=8')                       # one pipeline over 8 nodes
JU=$(sub 2 'no tag: the placer must leave this alone')   # held, not opted in
JC=$(sub 4 'llm-7b topo-sched:tp=8,pp=2,alpha=0.5')      # tag after other text, alpha given
JD=$(sub 2 'topo-sched:tp=8,gpus=16')                    # gpus given, pp by default
JI=$(sub 64 'topo-sched:tp=8,pp=8')                      # 64 nodes: cannot fit (n17 drained)
JE=$(sub 1 'topo-sched:pp=1')                            # one node, tp by default
JT=$(sub 2 'topo-sched:tp=eight')                        # a tag that does not parse
OPT1="$JA $JB $JC $JD $JE"
wait_jobs PENDING 20 $OPT1 $JU $JI $JT
for j in $OPT1 $JU $JI $JT; do jv $j; [ "$prio" = 0 ] || fail "job $j is not held"; done
say "held jobs submitted: opt-in $OPT1, untagged $JU, infeasible $JI, bad tag $JT"

# ---------------------------------------------------------------- cycle 1 (--once)
# The offline view of the same state: the test's own topology.conf and sinfo's JSON, taken
# just before the cycle (nothing else changes the cluster in between).
sinfo --json > "$W/sinfo1.json"
"$TS" topology import-slurm "$BASE/etc/topology.conf" --nodes-json "$W/sinfo1.json" -o "$W/offline1.json" \
  || fail "topology import-slurm --nodes-json failed"
# leaf0 busy (GPUs asked), n9 busy (exclusive, none asked), the mixed node, the drained one, idle
py expect "$W/offline1.json" n0=0,0 n9=0,0 $MIXED=7,0 $DRAINED='*,1' n30=8,0 || fail "offline import of the live state"
ok "offline import of the live state: busy, mixed (7 free), drained (down) and idle nodes as expected"
# The same state read live: topo-sched-slurm state and topo-sched topology import-slurm-live
# (which runs it) give the offline import's bytes.
"$TSS" state -o "$W/state1.json" || fail "topo-sched-slurm state failed"
TSCHED_SLURM_PLACER=$TSS "$TS" topology import-slurm-live -o "$W/live1.json" || fail "topology import-slurm-live failed"
cmp -s "$W/state1.json" "$W/offline1.json" || fail "topo-sched-slurm state differs from the offline import: $(diff "$W/state1.json" "$W/offline1.json" | head -5)"
cmp -s "$W/live1.json" "$W/offline1.json" || fail "topology import-slurm-live differs from the offline import"
ok "topo-sched-slurm state and topology import-slurm-live give the offline import's bytes"

PLACER_ARGS=(--hostfile-dir "$W/hosts" --dump-dir "$W/dump")
rc=0; "$TSS" --once "${PLACER_ARGS[@]}" --log "$W/once1.log" || rc=$?
[ "$rc" = 0 ] || fail "topo-sched-slurm --once exited $rc"
say "cycle 1 done: $(grep -c ' placed ' "$W/once1.log") placed"
wait_jobs RUNNING 30 $OPT1
ok "all opt-in jobs of cycle 1 RUNNING"

# Checks one placed job J against a replay of the placer's dump; TAKEN = nodes placed earlier
# in the same cycle, OFFLINE = the offline import of the state the cycle started from.
check_placed() {
  local j=$1 offline=$2 log=$3 out; shift 3
  "$TS" place -t "$W/dump/$j.topology.json" -j "$W/dump/$j.job.json" --no-timing \
    --hostfile "$W/replay/$j.hosts" -o "$W/replay/$j.placement.json" || fail "job $j: topo-sched place on the dump failed"
  out=$(py placed "$W/sq.json" "$j" "$offline" "$W" "$log" "$DRAINED,$MIXED" "$@") || fail "$out"
  ok "$out"
}
taken=()
for j in $OPT1; do
  check_placed "$j" "$W/offline1.json" "$W/once1.log" "${taken[@]}"
  taken+=($(cat "$W/replay/$j.nodes"))
done
ok "each later job of cycle 1 saw the ${#taken[@]} nodes of the earlier ones as taken"

# ---------------------------------------------------------------- jobs it must not place
check_held() {   # job placed by nobody: PENDING, held, no required nodes; $2: admin comment wanted
  local j=$1 want=$2
  refresh; jv "$j"
  [ "$state" = PENDING ] || fail "job $j is $state, not PENDING"
  [ "$prio" = 0 ] || fail "job $j was released (priority $prio)"
  [ -z "$req" ] || fail "job $j got required nodes $req"
  case $admin in $want) ;; *) fail "job $j: admin comment '$admin', wanted '$want'";; esac
}
check_untouched() {
  check_held "$JU" ""
  [ ! -e "$W/hosts/$JU.hosts" ] && [ ! -e "$W/dump/$JU.job.json" ] || fail "the untagged job $JU got a hostfile or dump"
  ! grep -qE "job=$JU( |$)" "$W"/*.log || fail "the untagged job $JU appears in a placer log"
}
check_untouched; ok "untagged held job $JU untouched (held, no nodes, no comment, not logged)"
check_held "$JI" "topo-sched: not placed: ?*"
grep -qE "^topo-sched-slurm: job=$JI held reason=" "$W/once1.log" || fail "no 'held' line for job $JI"
ok "infeasible job $JI held: $admin"
check_held "$JT" "topo-sched: not placed: ?*"
ok "bad-tag job $JT held: $admin"

# ---------------------------------------------------------------- crash before release
JX=$(sub 4 'topo-sched:tp=8,pp=4')
wait_jobs PENDING 20 "$JX"
say "job $JX submitted (held, opt-in); placer with the crash hook"
rc=0; TSCHED_SLURM_TEST_EXIT_BEFORE_RELEASE=1 "$TSS" --once "${PLACER_ARGS[@]}" --log "$W/crash.log" || rc=$?
[ "$rc" = 99 ] || fail "the test hook should end the placer with 99, got $rc"
[ -s "$W/hosts/$JX.hosts" ] || fail "crashed placer wrote no hostfile for $JX"
check_held "$JX" ""
ok "placer died before releasing job $JX: still held, no required nodes"

# ---------------------------------------------------------------- the run daemon
sinfo --json > "$W/sinfo2.json"
"$TS" topology import-slurm "$BASE/etc/topology.conf" --nodes-json "$W/sinfo2.json" -o "$W/offline2.json"
"$TSS" run --interval 1 "${PLACER_ARGS[@]}" --log "$W/run.log" &
DAEMON=$!
wait_jobs RUNNING 30 "$JX"
check_placed "$JX" "$W/offline2.json" "$W/run.log"
ok "a later cycle (run daemon) placed the job the crashed placer left"

# ---------------------------------------------------------------- controller restart
"$HERE/restart-ctld.sh" stop
say "slurmctld stopped"
end=$((SECONDS + 30))
until grep -q '^topo-sched-slurm: cycle failed' "$W/run.log"; do
  [ $SECONDS -lt $end ] || fail "no 'cycle failed' line in run.log 30 s after slurmctld stopped"
  daemon_alive || fail "the run daemon exited while slurmctld was down"
  sleep 0.3
done
ok "run daemon logged: $(grep -m1 '^topo-sched-slurm: cycle failed' "$W/run.log")"
"$HERE/restart-ctld.sh" start
say "slurmctld restarted"
JY=$(sub 4 'topo-sched:tp=8,pp=2')
wait_jobs RUNNING 60 "$JY"
daemon_alive || fail "the run daemon is gone"
# The state changed under the running daemon (restart): replay checks only ("-": no offline view).
check_placed "$JY" - "$W/run.log"
ok "after the restart the daemon placed job $JY"

# ---------------------------------------------------------------- completion and rank order
ALL="$OPT1 $JX $JY"
touch "$W/go"
wait_jobs COMPLETED 90 $ALL
for j in $ALL; do
  [ -s "$W/out/$j.ranks" ] || fail "job $j: srun wrote no ranks ($(cat "$W/out/$j.out" 2>/dev/null))"
  [ "$(cat "$W/out/$j.ranks")" = "$(cat "$W/hosts/$j.hosts")" ] || \
    fail "job $j: rank order $(tr '\n' ' ' < "$W/out/$j.ranks") is not the hostfile's $(tr '\n' ' ' < "$W/hosts/$j.hosts")"
done
ok "all $(echo $ALL | wc -w) opt-in jobs COMPLETED; srun ran rank i on hostfile line i in each"
check_untouched; ok "untagged job $JU still untouched"
check_held "$JI" "topo-sched: not placed: ?*"; ok "infeasible job $JI still held"

stop_daemon
[ "$DAEMON_RC" = 0 ] || fail "run daemon exited $DAEMON_RC on SIGTERM (137: did not exit within 15 s)"
ok "run daemon exited 0 on SIGTERM"

# ---------------------------------------------------------------- reservation (App. G)
# 47 whole nodes are free (+ 7 GPUs of the mixed node). JR (40 nodes) may begin in 600 s;
# JN (2 nodes) fits outside its reservation, JS (8 nodes, 1 minute) does not but ends before
# JR begins, JL (8 nodes, 60 minutes) does neither.
t_sub=$(date +%s)
JR=$(sub 40 'topo-sched:tp=8,pp=8' --begin=now+600)
JN=$(sub 2 'topo-sched:tp=8' --time=60)
JS=$(sub 8 'topo-sched:tp=8,pp=2' --time=1)
JL=$(sub 8 'topo-sched:tp=8,pp=2' --time=60)
t_end=$(date +%s)
wait_jobs PENDING 20 $JR $JN $JS $JL
rc=0; "$TSS" --once --dry-run --log "$W/nores.log" || rc=$?
[ "$rc" = 0 ] || fail "topo-sched-slurm --once --dry-run exited $rc"
grep -qE "^topo-sched-slurm: job=$JR placed .* dry-run$" "$W/nores.log" || fail "without --reserve-horizon job $JR is not placed: $(cat "$W/nores.log")"
! grep -qE " reserved |admit=|delayed" "$W/nores.log" || fail "without --reserve-horizon the log speaks of reservations"
ok "without --reserve-horizon the job beginning later is placed as before (dry run), no reservation"
rc=0; "$TSS" --once --reserve-horizon 3600 "${PLACER_ARGS[@]}" --log "$W/res.log" || rc=$?
[ "$rc" = 0 ] || fail "topo-sched-slurm --once --reserve-horizon exited $rc"
line=$(grep -E "^topo-sched-slurm: job=$JR reserved nodes=[^ ]+ arrival=[0-9]+ ms=" "$W/res.log") || fail "no 'reserved' line for job $JR: $(cat "$W/res.log")"
resv=$(py expand "$(sed 's/.* nodes=\([^ ]*\) .*/\1/' <<<"$line")")
arr=$(sed 's/.* arrival=\([0-9]*\) .*/\1/' <<<"$line")
[ "$(wc -w <<<"$resv")" = 40 ] || fail "job $JR: $(wc -w <<<"$resv") nodes reserved, not 40"
[ "$arr" -ge $((t_sub + 600)) ] && [ "$arr" -le $((t_end + 600)) ] || fail "job $JR: arrival $arr is not its begin time"
check_held "$JR" ""
ok "job $JR (begins at $arr) held with 40 nodes reserved"
refresh; jv "$JN"
[ "$prio" != 0 ] && [ -n "$req" ] || fail "job $JN (fits outside the reservation) not released"
for h in $(py expand "$req"); do ! grep -qw "$h" <<<"$resv" || fail "job $JN placed on reserved node $h"; done
grep -qE "^topo-sched-slurm: job=$JN placed .* admit=now ms=" "$W/res.log" || fail "job $JN: no 'admit=now' line"
ok "job $JN fits outside the reservation: placed there ($req)"
jv "$JS"
[ "$prio" != 0 ] && [ -n "$req" ] || fail "job $JS (ends before the arrival) not released"
grep -qE "^topo-sched-slurm: job=$JS placed .* admit=reserved ms=" "$W/res.log" || fail "job $JS: no 'admit=reserved' line"
ok "job $JS does not fit outside but ends first: placed ($req)"
check_held "$JL" "topo-sched: not placed: delayed: nodes reserved for job $JR arriving at *"
ok "job $JL neither fits nor ends first: held ($admin)"
say "$CHECKS checks passed"

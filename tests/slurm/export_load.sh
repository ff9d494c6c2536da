#!/bin/bash
# Every topology.conf form `topo-sched topology export --to slurm-conf` writes (tree,
# --physical, --block) of several fabrics, loaded by the real slurmctld (issue 25): for each,
# a slurm.conf naming the fabric's nodes, `slurmctld -D` started on loopback with its own munge
# key, socket and state directory, then: the controller answers `scontrol ping` (it did not die
# with `fatal`), its log holds no fatal or topology error, and `scontrol show topology` lists
# exactly the switches exported, each with the exported nodes or child switches and LinkSpeed
# (export_load_check.py compares, expanding every hostlist with Slurm's own parser).
# The block form needs the topology/block plugin (Slurm 23.11 and later); without it (Debian's
# 22.05) the block files are checked as far as that Slurm allows: Slurm's hostlist parser
# expands each block's Nodes= to exactly the exported nodes and BlockSizes is integers.
# topology.yaml (Slurm 25.05) is not read by this Slurm and not tested here.
#
# Usage: export_load.sh TOPO_SCHED [SRCDIR]. Root only (SlurmUser=root); exit 77 with the
# reason when not root or a program is missing.
# Env: BASE (a new directory under /tmp; removed at the end unless KEEP=1), CTLD_PORT (26917),
# FABRICS (a subset of the fabric names below, for debugging).
# Only the daemons this script started are stopped, by their PIDs (trap on exit).
set -uo pipefail
TS=${1:?usage: export_load.sh TOPO_SCHED [SRCDIR]}
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=${2:-$(cd "$HERE/../.." && pwd)}
CTLD_PORT=${CTLD_PORT:-26917}
export PATH=$PATH:/usr/sbin:/usr/local/sbin
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" = 0 ] || skip "needs root (SlurmUser=root)"
# Debian's real controller is slurmctld-wlm (slurmctld may be an alternatives link).
CTLD=$(command -v slurmctld-wlm || command -v slurmctld) || skip "slurmctld not installed"
for c in munged mungekey scontrol python3; do command -v $c >/dev/null || skip "$c not installed"; done
[ -x "$TS" ] || { echo "export_load.sh: $TS is not executable" >&2; exit 1; }
PLUGDIR=$(dirname "$(ldconfig -p 2>/dev/null | awk '/libslurmfull/ {print $NF; exit}')")/slurm-wlm
[ -d "$PLUGDIR" ] || PLUGDIR=/usr/lib/x86_64-linux-gnu/slurm-wlm
HAVE_BLOCK=0; [ -e "$PLUGDIR/topology_block.so" ] && HAVE_BLOCK=1
if { true 3<> "/dev/tcp/127.0.0.1/$CTLD_PORT"; } 2>/dev/null; then
  echo "export_load.sh: port $CTLD_PORT is in use (set CTLD_PORT)" >&2; exit 1
fi

OWN_BASE=0
if [ -z "${BASE:-}" ]; then BASE=$(mktemp -d /tmp/tsched-export-load.XXXXXX) && chmod 755 "$BASE"; OWN_BASE=1; fi
case $BASE in /*) ;; *) echo "export_load.sh: BASE=$BASE must be absolute" >&2; exit 1;; esac
# a given BASE is emptied only when an earlier run made it (marker), never another directory
if [ -e "$BASE/.tsched-export-load" ]; then
  rm -rf "${BASE:?}"/{etc,log,pid,munge,key,state,spool,fab}
elif [ -e "$BASE" ] && [ -n "$(ls -A "$BASE")" ]; then
  echo "export_load.sh: $BASE exists and was not made by export_load.sh" >&2; exit 1
fi
MUNGE_PID="" CTLD_PID=""
stop_pid() {  # SIGTERM, then SIGKILL after 5 s; only our own children
  local p=$1 i
  [ -n "$p" ] || return 0
  kill "$p" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do kill -0 "$p" 2>/dev/null || return 0; sleep 0.1; done
  kill -9 "$p" 2>/dev/null
}
cleanup() {
  stop_pid "$CTLD_PID"; wait "$CTLD_PID" 2>/dev/null
  stop_pid "$MUNGE_PID"
  if [ "${KEEP:-0}" != 1 ] && [ $OWN_BASE = 1 ]; then rm -rf "$BASE"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$BASE"/{etc,log,pid,munge,key,state,spool,fab} || exit 1
: > "$BASE/.tsched-export-load"
chmod 755 "$BASE/munge"; chmod 700 "$BASE/key"
mungekey --create --force --keyfile="$BASE/key/munge.key" || exit 1
munged --socket="$BASE/munge/munge.sock" --key-file="$BASE/key/munge.key" --pid-file="$BASE/pid/munged.pid" \
       --log-file="$BASE/log/munged.log" --seed-file="$BASE/key/munged.seed" || exit 1
MUNGE_PID=$(cat "$BASE/pid/munged.pid")
export SLURM_CONF=$BASE/etc/slurm.conf
T0=$SECONDS fail=0 loads=0

# ---- the fabrics ----------------------------------------------------------------------------
F=$BASE/fab
# a two-level fat tree: 4 leaves under each of 4 spines
printf '{"format":"tsched.topology.v1","name":"fattree","generate":{"kind":"leaf_spine","leaves":4,"spines":4,"nodes_per_leaf":4,"gpus_per_node":8,"nic_gbps":400}}\n' > "$F/fattree.json"
# the issue's repro: three spines over two leaves (LinkSpeed 12800/3 with --physical)
printf 'SwitchName=s0 Switches=l[0-1]\nSwitchName=s1 Switches=l[0-1]\nSwitchName=s2 Switches=l[0-1]\nSwitchName=l0 Nodes=n[0-3]\nSwitchName=l1 Nodes=n[4-7]\n' > "$F/repro.conf"
"$TS" topology import-slurm "$F/repro.conf" -o "$F/repro.json" || exit 1
# a leaf of one 12.5 Gbit/s NIC (LinkSpeed=12.5 in the tree form before the fix)
printf '{"format":"tsched.topology.v1","name":"slow","switches":[{"name":"l","tier":0},{"name":"s","tier":1}],"nodes":[{"name":"n1","leaf":"l","gpus":1,"nic_gbps":12.5}],"links":[{"a":"l","b":"s","gbps":12.5}]}\n' > "$F/slow.json"
# six NVLink blocks with BlockSizes=4,8,16 (kept by the import, written back by --block)
"$TS" topology import-slurm "$SRC/tests/data/import/block.conf" -o "$F/block.json" || exit 1
# a Clos (4 pods of 2 leaves and 2 spines, 2 cores)
cp "$SRC/tests/data/cli/cluster.json" "$F/clos.json"
# 8 switch levels
"$TS" topology import-slurm "$SRC/tests/data/import/deep8.conf" -o "$F/deep8.json" || exit 1
# Kubernetes racks with one 63-character label value under two blocks: the import names them
# "<block>/<value>" (73 characters); exported with --sanitize (64 at most)
python3 - "$F/k8s-nodes.input" <<'EOF' || exit 1
import json, sys
v = "r" * 63
items = [{"metadata": {"name": "gpu%d" % i, "labels": {"ex.com/block": "block-00%d" % (i // 2), "ex.com/rack": v}},
          "spec": {}, "status": {"allocatable": {"nvidia.com/gpu": "8"}}} for i in range(4)]
json.dump({"apiVersion": "v1", "kind": "List", "items": items}, open(sys.argv[1], "w"))
EOF
"$TS" topology import-k8s-nodes "$F/k8s-nodes.input" --levels ex.com/block,ex.com/rack -o "$F/longnames.json" || exit 1

python3 "$HERE/export_load_check.py" nodes "$F"/*.json || exit 1
MANIFEST=$F/manifest
: > "$MANIFEST"

# ---- one slurmctld per topology.conf ------------------------------------------------------
write_slurm_conf() {  # $1 fabric JSON, $2 topology plugin
  {
    cat <<EOF
ClusterName=tsx
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$BASE/munge/munge.sock
StateSaveLocation=$BASE/state
SlurmdSpoolDir=$BASE/spool
SlurmctldPidFile=$BASE/pid/slurmctld.pid
SlurmctldLogFile=$BASE/log/slurmctld.log
SlurmctldDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
TopologyPlugin=$2
MailProg=/bin/true
MessageTimeout=5
EOF
    # every node of the fabric, on 127.0.0.1 (no slurmd runs: they stay UNKNOWN)
    while read -r n; do echo "NodeName=$n NodeAddr=127.0.0.1 CPUs=1 RealMemory=100 State=UNKNOWN"; done < "${1%.json}.nodes"
    echo "PartitionName=all Nodes=ALL Default=YES State=UP"
  } > "$BASE/etc/slurm.conf"
}

load_one() {  # $1 label, $2 fabric JSON (full, every node), $3 topology.conf, $4 plugin
  local label=$1 i t_load=$SECONDS
  write_slurm_conf "$2" "$4"
  cp "$3" "$BASE/etc/topology.conf"
  rm -rf "$BASE/state"/* "$BASE/log/slurmctld.log"
  "$CTLD" -D -c -f "$SLURM_CONF" > "$BASE/log/slurmctld.out" 2>&1 &
  CTLD_PID=$!
  local up=0
  for ((i = 0; i < 150; i++)); do
    kill -0 "$CTLD_PID" 2>/dev/null || break
    if timeout 5 scontrol ping 2>/dev/null | grep -q "is UP"; then up=1; break; fi
    sleep 0.1
  done
  local ok=1
  if [ $up = 0 ]; then
    echo "FAIL $label: slurmctld did not come up"; ok=0
  elif grep -Eiq 'fatal|error:.*(topolog|switch|linkspeed|block)' "$BASE/log/slurmctld.log" "$BASE/log/slurmctld.out"; then
    echo "FAIL $label: slurmctld logged:"; ok=0
  else
    local shown=${3%.conf}.shown
    if timeout 10 scontrol show topology > "$shown" 2>&1; then
      echo "tree $3 $shown $2 $label" >> "$MANIFEST"   # compared at the end, one python3 for all
    else
      echo "FAIL $label: scontrol show topology: $(head -1 "$shown")"; ok=0
    fi
  fi
  if [ $ok = 0 ]; then
    grep -Ei 'fatal|error' "$BASE/log/slurmctld.log" "$BASE/log/slurmctld.out" 2>/dev/null | head -5
    echo "--- $3:"; head -20 "$3"; fail=1
  else
    echo "ok   $label: slurmctld loaded it ($(grep -c . "$3") lines, $((SECONDS - t_load)) s)"
  fi
  loads=$((loads + 1))
  stop_pid "$CTLD_PID"; wait "$CTLD_PID" 2>/dev/null; CTLD_PID=""
}

for fab in ${FABRICS:-fattree repro slow block clos deep8 longnames}; do
  extra=(); [ $fab = longnames ] && extra=(--sanitize)
  for form in tree physical block; do
    args=(); [ $form != tree ] && args=(--$form)
    out=$F/$fab-$form.conf
    if ! "$TS" topology export -t "$F/$fab.json" --to slurm-conf "${args[@]}" "${extra[@]}" -o "$out" 2> "$F/err"; then
      # --physical refuses fabrics it cannot write (a bare upper switch); none of these is one
      echo "FAIL $fab $form: export: $(cat "$F/err")"; fail=1; continue
    fi
    if grep -Eq 'LinkSpeed=[^ ]*[^0-9 ]' "$out"; then echo "FAIL $fab $form: LinkSpeed not an integer"; fail=1; fi
    # the block import's BlockSizes=4,8,16 comes back as it was
    if [ $fab-$form = block-block ] && ! grep -qx 'BlockSizes=4,8,16' "$out"; then
      echo "FAIL $fab $form: $(grep BlockSizes "$out") instead of BlockSizes=4,8,16"; fail=1
    fi
    if [ $form = block ]; then
      if [ $HAVE_BLOCK = 1 ]; then
        load_one "$fab $form" "$F/$fab.json" "$out" topology/block
      else
        echo "block $out - $F/$fab.json $fab $form (no topology/block in this Slurm: hostlists only)" >> "$MANIFEST"
      fi
    else
      load_one "$fab $form" "$F/$fab.json" "$out" topology/tree
    fi
  done
done
python3 "$HERE/export_load_check.py" batch "$MANIFEST" || fail=1
echo "$loads slurmctld loads in $((SECONDS - T0)) s"
exit $fail

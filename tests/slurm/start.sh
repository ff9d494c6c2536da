#!/bin/bash
# Start an emulated Slurm cluster on this host for the end-to-end test (tests/slurm/e2e.sh):
# munged with its own key and socket, slurmctld, and one slurmd per emulated node, each on its
# own loopback address and port; returns when every node is idle. Needs root and Slurm 22.05
# or later built with multiple-slurmd support (Debian's slurmctld/slurmd packages are).
#
# Env: NODES (64; a multiple of 16: 8 nodes per leaf switch, leaves split over 2 spines under
#      a root switch), BASE (/tmp/topo-sched-slurm; created, and wiped only when an earlier
#      start.sh made it), CTLD_PORT (26817), NODE_PORT0 (27000: node i listens on
#      NODE_PORT0+i), WAIT_S (120: give up waiting for idle nodes), MSG_TIMEOUT (10: Slurm's
#      MessageTimeout; a client finds a stopped controller unreachable after about that long).
# Stop with BASE=... tests/slurm/stop.sh (kills only the PIDs recorded under $BASE/pid).
set -euo pipefail
NODES=${NODES:-64}
BASE=${BASE:-/tmp/topo-sched-slurm}
CTLD_PORT=${CTLD_PORT:-26817}
NODE_PORT0=${NODE_PORT0:-27000}
WAIT_S=${WAIT_S:-120}
MSG_TIMEOUT=${MSG_TIMEOUT:-10}
PER_LEAF=8
HERE=$(cd "$(dirname "$0")" && pwd)
T0=${EPOCHREALTIME/./}
say() { local us=$(( ${EPOCHREALTIME/./} - T0 )); printf '[%d.%02ds] %s\n' $((us / 1000000)) $((us % 1000000 / 10000)) "$*"; }
die() { echo "start.sh: $*" >&2; exit 1; }

case $NODES in ''|*[!0-9]*) die "NODES=$NODES is not a number";; esac
case $MSG_TIMEOUT in ''|0|*[!0-9]*) die "MSG_TIMEOUT=$MSG_TIMEOUT is not a positive number";; esac
[ "$NODES" -gt 0 ] && [ $((NODES % (2 * PER_LEAF))) -eq 0 ] || die "NODES=$NODES is not a positive multiple of $((2 * PER_LEAF))"
case $BASE in /*) ;; *) die "BASE=$BASE must be an absolute path";; esac
[ "$(id -u)" = 0 ] || die "needs root (SlurmUser=root, one slurmd per node)"

# The real daemon binaries. Debian installs them as *-wlm behind alternatives links (which may
# point at the unusable front-end "emulator" build); elsewhere they are plain slurmctld etc.
daemon_bin() {
  local d
  for d in /usr/sbin /usr/local/sbin /usr/bin /usr/local/bin; do
    [ -x "$d/$1-wlm" ] && { echo "$d/$1-wlm"; return; }
  done
  d=$(PATH=$PATH:/usr/sbin:/usr/local/sbin command -v "$1") || return 1
  readlink -f "$d"
}
for d in slurmctld slurmd slurmstepd; do daemon_bin $d >/dev/null || die "$d not found"; done
for c in munged mungekey sbatch scontrol sinfo; do
  PATH=$PATH:/usr/sbin command -v $c >/dev/null || die "$c not found"
done
export PATH=$PATH:/usr/sbin

# A cluster of an earlier run under $BASE (e.g. a failed test): stop it first. BASE is wiped
# only when it is ours (marker file) or empty, never an unrelated directory.
if [ -e "$BASE" ]; then
  if [ -e "$BASE/.topo-sched-slurm" ]; then
    BASE=$BASE "$HERE/stop.sh" >/dev/null
    rm -rf "$BASE"
  elif [ -n "$(ls -A "$BASE")" ]; then
    die "$BASE exists and was not made by start.sh; not wiping it"
  fi
fi
read -r eph_lo eph_hi 2>/dev/null < /proc/sys/net/ipv4/ip_local_port_range || eph_lo=""
if [ -n "$eph_lo" ] && [ $((NODE_PORT0 + NODES - 1)) -ge "$eph_lo" ] && [ "$NODE_PORT0" -le "$eph_hi" ]; then
  echo "start.sh: warning: node ports $NODE_PORT0-$((NODE_PORT0 + NODES - 1)) overlap the ephemeral range $eph_lo-$eph_hi"
fi
# Ports taken by another program would surface as daemons that never answer: say so now.
# (One connect per port in this shell: a subshell each costs seconds on a loaded machine.)
for port in $CTLD_PORT $(seq "$NODE_PORT0" $((NODE_PORT0 + NODES - 1))); do
  if { true 3<> "/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; then
    die "port $port is in use (set CTLD_PORT / NODE_PORT0 to free ports)"
  fi
done
mkdir -p "$BASE"/{bin,etc,dev,log,pid,munge,mungekey,spool/ctld}
: > "$BASE/.topo-sched-slurm"
# Slurm keys some behaviour on basename(argv[0]): run as "slurmd-wlm", slurmd silently drops
# Gres= from slurm.conf. Links with the plain names fix that.
for d in slurmctld slurmd slurmstepd; do ln -s "$(daemon_bin $d)" "$BASE/bin/$d"; done
chmod 755 "$BASE/munge"      # munged refuses a socket directory that is not world-executable
chmod 700 "$BASE/mungekey"

mungekey --create --force --keyfile="$BASE/mungekey/munge.key"
munged --socket="$BASE/munge/munge.sock" --key-file="$BASE/mungekey/munge.key" \
       --pid-file="$BASE/pid/munged.pid" --log-file="$BASE/log/munged.log" \
       --seed-file="$BASE/mungekey/munged.seed"
say "munged up (pid $(cat "$BASE/pid/munged.pid"))"

LEAVES=$((NODES / PER_LEAF)); HALF=$((LEAVES / 2)); LAST=$((NODES - 1))
cat > "$BASE/etc/slurm.conf" <<EOF
# written by tests/slurm/start.sh
ClusterName=tsched
SlurmctldHost=localhost
SlurmctldPort=$CTLD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$BASE/munge/munge.sock
StateSaveLocation=$BASE/spool/ctld
SlurmdSpoolDir=$BASE/spool/%n
SlurmctldPidFile=$BASE/pid/slurmctld.pid
SlurmdPidFile=$BASE/pid/slurmd.%n.pid
SlurmctldLogFile=$BASE/log/slurmctld.log
SlurmdLogFile=$BASE/log/slurmd.%n.log
SlurmctldDebug=info
SlurmdDebug=info
PlugStackConfig=$BASE/etc/plugstack.conf
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
TopologyPlugin=topology/tree
GresTypes=gpu
# the nodes claim 8 CPUs on a host that may have fewer
SlurmdParameters=config_overrides
ReturnToService=2
SlurmdTimeout=300
InactiveLimit=0
# completed jobs stay visible (COMPLETED) for 5 minutes
MinJobAge=300
KillWait=5
Waittime=0
MessageTimeout=$MSG_TIMEOUT
EOF
# Leaf l's nodes listen on 127.(1+l/256).(l%256).1-8 (always valid addresses), ports in order.
for ((l = 0; l < LEAVES; l++)); do
  a=$((l * PER_LEAF)); b=$((a + PER_LEAF - 1))
  echo "NodeName=n[$a-$b] NodeAddr=127.$((1 + l / 256)).$((l % 256)).[1-$PER_LEAF]" \
       "Port=[$((NODE_PORT0 + a))-$((NODE_PORT0 + b))] CPUs=8 RealMemory=1000 Gres=gpu:8 State=UNKNOWN"
done >> "$BASE/etc/slurm.conf"
echo "PartitionName=main Nodes=n[0-$LAST] Default=YES MaxTime=INFINITE State=UP" >> "$BASE/etc/slurm.conf"
: > "$BASE/etc/plugstack.conf"
# No cgroup plugin is configured, but slurmd always initialises one: cgroup/v1 without
# automount touches nothing, so the host's cgroup layout does not matter.
printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' > "$BASE/etc/cgroup.conf"
# slurmd drops GPUs without File= (22.05); the files must be character devices.
for g in 0 1 2 3 4 5 6 7; do ln -s /dev/null "$BASE/dev/gpu$g"; done
echo "NodeName=n[0-$LAST] Name=gpu File=$BASE/dev/gpu[0-7]" > "$BASE/etc/gres.conf"
# Two spines need a common root switch, else Slurm rejects jobs spanning both spines.
{
  for ((l = 0; l < LEAVES; l++)); do echo "SwitchName=leaf$l Nodes=n[$((l * PER_LEAF))-$((l * PER_LEAF + PER_LEAF - 1))]"; done
  echo "SwitchName=spine0 Switches=leaf[0-$((HALF - 1))]"
  echo "SwitchName=spine1 Switches=leaf[$HALF-$((LEAVES - 1))]"
  echo "SwitchName=root Switches=spine[0-1]"
} > "$BASE/etc/topology.conf"
mkdir $(for ((i = 0; i < NODES; i++)); do echo "$BASE/spool/n$i"; done)
export SLURM_CONF=$BASE/etc/slurm.conf
say "configs written under $BASE/etc"

"$HERE/restart-ctld.sh" start
say "slurmctld up (pid $(cat "$BASE/pid/slurmctld.pid"))"
start_slurmd() {   # -d: the step daemon under its plain name too (see above)
  "$BASE/bin/slurmd" -f "$SLURM_CONF" -N "n$1" -d "$BASE/bin/slurmstepd"
}
for ((i = 0; i < NODES; i++)); do
  start_slurmd $i &
  (( (i + 1) % 32 == 0 )) && wait    # at most 32 daemons starting at once
done
wait
say "$NODES slurmd started"

# A slurmd whose port was taken in the meantime (ports in the ephemeral range can be, briefly,
# by any outgoing connection) exits: start those again, up to 3 times.
n=0; deadline=$((SECONDS + WAIT_S)); retry_at=$((SECONDS + 5)); tries=0
while [ $SECONDS -lt $deadline ]; do
  n=$(sinfo -h -N -t idle -o '%N' 2>/dev/null | wc -l)
  [ "$n" -ge "$NODES" ] && break
  if [ $SECONDS -ge $retry_at ] && [ $tries -lt 3 ]; then
    for ((i = 0; i < NODES; i++)); do
      p=""; read -r p 2>/dev/null < "$BASE/pid/slurmd.n$i.pid"
      if [ -z "$p" ] || ! kill -0 "$p" 2>/dev/null; then
        say "slurmd n$i is not running (port $((NODE_PORT0 + i)) taken?): starting it again"
        start_slurmd $i
      fi
    done
    tries=$((tries + 1)); retry_at=$((SECONDS + 5))
  fi
  sleep 0.2
done
say "$n/$NODES nodes idle"
[ "$n" -ge "$NODES" ] || die "timeout after ${WAIT_S}s waiting for idle nodes (logs in $BASE/log)"
echo "export SLURM_CONF=$SLURM_CONF"

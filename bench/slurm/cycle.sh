#!/bin/bash
# Cycle time of topo-sched-slurm on an emulated Slurm cluster (doc/PERFORMANCE.md, "Slurm placer").
#
# Starts NODES slurmd (8 per leaf; tests/slurm/start.sh), puts background load on it (exclusive
# jobs, 1-GPU jobs that leave nodes MIXED, drained nodes), submits JOBS held opt-in jobs
# (sbatch --hold --comment topo-sched:tp=8,pp=..), then for each algorithm of ALGOS:
#   - the wall time and peak RSS of one `topo-sched-slurm --once` cycle,
#   - the per-job decision times (ms= of the log lines),
#   - the time from the cycle's start (and from its end) until every opt-in job is RUNNING,
#   - whether each job runs on exactly the nodes its log line names,
# then cancels the opt-in jobs, waits for their nodes and goes on with the next algorithm.
# Everything it started is stopped at the end (by PID, tests/slurm/stop.sh), also on error.
#
# usage: bench/slurm/cycle.sh                  (from the source tree, after a build in ./build)
# env:   BASE=/tmp/se-bench  CTLD_PORT=16817  NODE_PORT0=17000  NODES=1024  JOBS=100
#        ALGOS="mip"  (e.g. "mip best-fit topo-aware")  SEED=1  BG_JOBS=40  BG_GPU1=32  DRAIN=8
#        BUILD=build  PLACER=$BUILD/contrib/slurm/topo-sched-slurm  START=tests/slurm/start.sh
#        STOP=tests/slurm/stop.sh  RUN_WAIT_S=300  KEEP=1 (leave the cluster running)
# Needs: the Slurm 22.05 daemons and clients, munge, root; 1,024 nodes take ~2 min and ~7.5 GB.
set -euo pipefail
src=$(cd "$(dirname "$0")/../.." && pwd)
export BASE=${BASE:-/tmp/se-bench} CTLD_PORT=${CTLD_PORT:-16817} NODE_PORT0=${NODE_PORT0:-17000}
export NODES=${NODES:-1024} WAIT_S=${WAIT_S:-300}   # WAIT_S: start.sh waits that long for idle nodes
JOBS=${JOBS:-100}
ALGOS=${ALGOS:-mip}
SEED=${SEED:-1}
BG_JOBS=${BG_JOBS:-40}
BG_GPU1=${BG_GPU1:-32}
DRAIN=${DRAIN:-8}
BUILD=${BUILD:-$src/build}
PLACER=${PLACER:-$BUILD/contrib/slurm/topo-sched-slurm}
START=${START:-$src/tests/slurm/start.sh}
STOP=${STOP:-$src/tests/slurm/stop.sh}
RUN_WAIT_S=${RUN_WAIT_S:-300}
export SLURM_CONF=$BASE/etc/slurm.conf

[ -x "$PLACER" ] || { echo "cycle.sh: no placer at $PLACER (build with -Dslurm=enabled, or set PLACER)" >&2; exit 2; }
if [ ! -x "$START" ] || [ ! -x "$STOP" ]; then echo "cycle.sh: need $START and $STOP" >&2; exit 2; fi
now() { date +%s.%N; }
dt() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

stop_cluster() { if [ "${KEEP:-0}" != 1 ]; then "$STOP" >/dev/null 2>&1 || true; fi; }
trap stop_cluster EXIT

echo "== machine: $(nproc) cores, $(awk '/MemTotal/ { printf "%.1f GB", $2 / 1048576 }' /proc/meminfo)," \
     "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== placer: $("$PLACER" --version 2>&1 | head -n1) ($(cd "$src" && git describe --always --dirty 2>/dev/null || echo '?'))"

t=$(now)
"$START" > "$BASE.start.log" 2>&1 || { tail -n 20 "$BASE.start.log" >&2; exit 1; }
echo "== $(sinfo --version), cluster: $NODES nodes idle after $(dt "$t" "$(now)") s (BASE=$BASE, ctld port $CTLD_PORT)"
mem_kb=$(cat "$BASE"/pid/*.pid | paste -sd, | xargs ps -o rss= -p | awk '{ s += $1 } END { print s + 0 }')
echo "== daemons' RSS sum: $(awk -v k="$mem_kb" 'BEGIN { printf "%.1f GB", k / 1048576 }')"

# ---- background load: Slurm's own placement, not opted in ----
RANDOM=$SEED
for ((i = 0; i < BG_GPU1; i++)); do      # 1 GPU, 1 CPU on spread nodes: MIXED, 7 GPUs free, not placeable
    sbatch -Q -o /dev/null -n 1 --gres=gpu:1 -w "n$(( (i * 37 + 3) % NODES ))" -J bg1 --wrap 'sleep 36000' >/dev/null
done
for ((i = 0; i < BG_JOBS; i++)); do      # whole nodes where Slurm puts them
    sbatch -Q -o /dev/null -N $((1 + RANDOM % 8)) --exclusive -J bg --wrap 'sleep 36000' >/dev/null
done
for ((i = 0; i < 60; i++)); do           # until Slurm has started all of them
    [ -z "$(squeue -h -t PD -o %i)" ] && break; sleep 1
done
if [ "$DRAIN" -gt 0 ]; then              # idle nodes of evenly spaced leaves, drained
    drained=$(sinfo -h -N -t idle -o %N | awk -v n="$DRAIN" '{ a[NR] = $1 } END { s = int(NR / n); for (i = 0; i < n; i++) print a[1 + i * s] }' | paste -sd,)
    scontrol update NodeName="$drained" State=DRAIN Reason=bench
fi
echo "== background: $(squeue -h -t R | wc -l) jobs running; nodes" \
     "$(sinfo -h -N -o '%T' | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }' | sed 's/, $//')"

# ---- the placer's live fabric against the offline import of the same state ----
TOPO_SCHED=${TOPO_SCHED:-$BUILD/src/cli/topo-sched}
if [ -x "$TOPO_SCHED" ]; then
    "$PLACER" state -o "$BASE/live.json"
    sinfo --json > "$BASE/nodes.json"
    "$TOPO_SCHED" topology import-slurm "$BASE/etc/topology.conf" --nodes-json "$BASE/nodes.json" -o "$BASE/offline.json"
    if cmp -s "$BASE/live.json" "$BASE/offline.json"; then same="the same bytes"; else same="DIFFERENT"; fi
    echo "== topo-sched-slurm state against import-slurm topology.conf --nodes-json (sinfo --json): $same;" \
         "$(python3 -c 'import json, sys; s = json.load(open(sys.argv[1])).get("state", {})
print("%d nodes with GPUs in use, %d down" % (len(s.get("free_gpus", {})), len(s.get("down", []))))' "$BASE/live.json")"
fi

# ---- opt-in jobs: sizes 1-16 nodes, pp 1-4 ----
sizes=(1 2 4 8 16 2 4 8 1 4)
submit_optin() {
    local i n pp list=()
    for ((i = 0; i < JOBS; i++)); do
        n=${sizes[i % ${#sizes[@]}]}; pp=$(( n >= 4 ? (i % 2 ? 4 : 2) : n ))
        list+=("$(sbatch --parsable -N "$n" --exclusive --gres=gpu:8 --hold -J optin -o /dev/null \
                 --comment "topo-sched:tp=8,pp=$pp" --wrap 'sleep 36000')")
    done
    echo "${list[*]}"
}
stats() {  # numbers on stdin -> n, sum, mean, median, p90, max
    sort -g | awk '{ v[NR] = $1; s += $1 } END { if (!NR) { print "n=0"; exit }
        printf "n=%d sum=%.1f mean=%.2f median=%.2f p90=%.2f max=%.2f", NR, s, s / NR,
               v[int((NR + 1) / 2)], v[int(NR * 0.9 + 0.999)], v[NR] }'
}

summary() {  # placer log lines on stdin -> count per status, mean weighted spread
    awk '/ placed / { for (i = 1; i <= NF; i++) { split($i, kv, "=")
            if (kv[1] == "status") st[kv[2]]++; if (kv[1] == "weighted") { w += kv[2]; n++ } } }
         END { for (k in st) printf "%s %d, ", k, st[k]; if (n) printf "mean weighted %.3f", w / n }'
}
starts() {  # slurmctld.log on stdin, job ids in $1 -> how many the main and the backfill scheduler started
    awk -v ids="$1" 'BEGIN { n = split(ids, a, " "); for (i = 1; i <= n; i++) want[a[i]] = 1 }
         match($0, /(sched: Allocate|sched\/backfill: _start_job: Started) JobId=[0-9]+/) {
             s = substr($0, RSTART, RLENGTH); id = s; sub(/.*JobId=/, "", id)
             if (id in want && !(id in seen)) { seen[id] = 1; if (s ~ /backfill/) b++; else m++ } }
         END { printf "the main scheduler %d, backfill %d", m, b }'
}

for algo in $ALGOS; do
    ids=$(submit_optin)
    nodes_needed=$(squeue -h -j "${ids// /,}" -o %D | awk '{ s += $1 } END { print s }')
    log=$BASE/placer-$algo.log; hosts=$BASE/hosts-$algo; rm -rf "$log" "$log.dry" "$hosts"; mkdir -p "$hosts"
    # first the same cycle with --dry-run: the decisions without the per-job re-read and update
    td=$(now)
    "$PLACER" --once --dry-run --algo "$algo" --hostfile-dir "$hosts" --log "$log.dry" || echo "placer exit $?"
    echo "== $algo --dry-run: cycle wall $(dt "$td" "$(now)") s; per-job ms:" \
         "$(grep -o ' placed .* ms=[0-9.]*' "$log.dry" | sed 's/.*ms=//' | stats)"
    t0=$(now)
    /usr/bin/time -f '%e %M' -o "$BASE/time-$algo" \
        "$PLACER" --once --algo "$algo" --hostfile-dir "$hosts" --log "$log" || echo "placer exit $?"
    t1=$(now)
    left=$JOBS
    while [ "$(dt "$t0" "$(now)" | cut -d. -f1)" -lt "$RUN_WAIT_S" ]; do
        left=$(squeue -h -j "${ids// /,}" -t PD -o %i | wc -l)
        [ "$left" -eq 0 ] && break; sleep 0.1
    done
    t2=$(now)
    placed=$(grep -c ' placed ' "$log" || true); held=$(grep -c ' held ' "$log" || true)
    # each job's allocation against the nodes its log line names
    match=0
    while read -r id nl; do
        want=$(grep -o "job=$id placed nodes=[^ ]*" "$log" | sed 's/.*nodes=//') || true
        [ -n "$want" ] && [ "$(scontrol show hostnames "$nl" | sort)" = "$(scontrol show hostnames "$want" | sort)" ] &&
            match=$((match + 1))
    done < <(squeue -h -j "${ids// /,}" -t R -o '%i %N')
    echo "== $algo: $JOBS opt-in jobs ($nodes_needed nodes), cycle wall $(dt "$t0" "$t1") s" \
         "(/usr/bin/time: $(awk '{ printf "%s s, max RSS %.1f MB", $1, $2 / 1024 }' "$BASE/time-$algo"));" \
         "placed $placed, held $held"
    echo "   per-job ms: $(grep -o ' placed .* ms=[0-9.]*' "$log" | sed 's/.*ms=//' | stats)"
    echo "   placements: $(summary < "$log")"
    # who started each job: slurmctld's main scheduler ("sched: Allocate") or its backfill pass
    echo "   started by $(starts "$ids" < "$BASE/log/slurmctld.log")"
    if [ "$left" -eq 0 ]; then
        echo "   all RUNNING $(dt "$t0" "$t2") s after the cycle started ($(dt "$t1" "$t2") s after it ended);" \
             "on the logged nodes: $match/$placed"
    else
        echo "   $left jobs still pending after ${RUN_WAIT_S} s; on the logged nodes: $match/$placed"
    fi
    grep -m3 ' placed ' "$log" | sed 's/^/   /'
    grep -m3 ' held ' "$log" | sed 's/^/   /' || true
    read -ra idv <<< "$ids"; scancel "${idv[@]}" >/dev/null 2>&1 || true
    for ((i = 0; i < 120; i++)); do      # their nodes back before the next algorithm
        [ -z "$(squeue -h -j "${ids// /,}" -o %i 2>/dev/null)" ] && break; sleep 0.5
    done
done

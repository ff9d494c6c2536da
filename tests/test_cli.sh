#!/bin/sh
# The topo-sched command line, driven as a user would: outputs, exit codes (DESIGN 6),
# and one error line naming the file and the field.
# usage: test_cli.sh PATH/TO/topo-sched TESTS_DATA_DIR
set -u
ts=$1 data=$2
tmp=${TMPDIR:-/tmp}/tsched-cli.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/cli_lib.sh"

# demo: no files needed, deterministic
expect 0 "demo" -- "$ts" demo
has "$tmp/out" "2048 nodes x 8 H800 GPUs" "demo"
has "$tmp/out" "16 paths" "demo cross-pod paths"
has "$tmp/out" "mip              1.60" "demo places the job optimally"
# timings aside, the demo is the same on every run
sed 's/[0-9.]* ms/- ms/g' "$tmp/out" > "$tmp/demo1"
"$ts" demo | sed 's/[0-9.]* ms/- ms/g' > "$tmp/demo2"
if cmp -s "$tmp/demo1" "$tmp/demo2"; then ok; else bad "demo output differs between runs"; fi
lines "$tmp/err" 0 "demo prints nothing on stderr"

# Hostile input (hardening): bounded time and memory, exit 2, one line naming the limit.
# Memory is capped at 256 MiB unless the binary is sanitized (ASan maps far more).
bounded() { # bounded CODE DESCRIPTION -- command...
    want=$1 what=$2
    shift 3
    if grep -q __asan_init "$ts" 2>/dev/null; then cap=unlimited; else cap=262144; fi
    (ulimit -v "$cap" 2>/dev/null; exec timeout 5 "$@") > "$tmp/out" 2> "$tmp/err" < /dev/null
    got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "$what: exit $got, expected $want; stderr: $(head -c 300 "$tmp/err")"; fi
    lines "$tmp/err" 1 "$what: one error line"
}
printf 'SwitchName=s Nodes=n[0-4194303]\n' > "$tmp/huge.conf"
bounded 2 "33-byte topology.conf of 4M nodes" -- "$ts" topology import-slurm "$tmp/huge.conf"
has "$tmp/err" "the limit nodes = 1048576" "hostlist limit named"
bounded 2 "topology from /dev/zero" -- "$ts" topology show -t /dev/zero
has "$tmp/err" "NUL byte" "NUL input named"
head -c 300000 /dev/zero | tr '\0' ' ' > "$tmp/spaces.json"
bounded 2 "input above --limit input_bytes" -- "$ts" --limit input_bytes=100000 topology show -t "$tmp/spaces.json"
has "$tmp/err" "input_bytes" "input limit named"
printf '{"format":"tsched.topology.v1","nodes":[{"name":"bad\\nname","leaf":"l","gpus":8}],"switches":[{"name":"l","tier":0}]}' > "$tmp/nl.json"
bounded 2 "a node name with a newline" -- "$ts" topology show -t "$tmp/nl.json"
has "$tmp/err" "nodes[0].name" "newline name: field named"
printf '{"format":"tsched.topology.v1","nodes":[{"name":"n\\u0007","leaf":"l","gpus":8}],"switches":[{"name":"l","tier":0}]}' > "$tmp/bel.json"
bounded 2 "a node name with a control character" -- "$ts" topology show -t "$tmp/bel.json"
printf 'SwitchName=s Nodes=a\377b\n' > "$tmp/latin1.conf"
bounded 2 "a non-UTF-8 node name" -- "$ts" topology import-slurm "$tmp/latin1.conf"
has "$tmp/err" "UTF-8" "non-UTF-8 named"
expect 2 "unknown --limit" -- "$ts" --limit bogus=1 demo
has "$tmp/err" "bogus" "unknown limit named"

# topology show
expect 0 "show" -- "$ts" topology show -t "$data/cli/small.json"
for f in '"format": "tsched.topology-summary.v1"' '"nodes": 9' '"gpus": 68' '"free_gpus": 48' \
         '"leaf": 5' '"spine": 4' '"core": 2' '"pods": 2' '"spine1"' '"leaf0~spine0"' '"node7"'; do
    has "$tmp/out" "$f" "show"
done
expect 0 "show from stdin" -- sh -c "\"$ts\" topology show -t - < \"$data/cli/small.json\""
has "$tmp/out" '"nodes": 9' "show stdin"
expect 0 "show -o" -- "$ts" topology show -t "$data/cli/small.json" -o "$tmp/summary.json"
has "$tmp/summary.json" '"trunks"' "show -o file"

# bad input: exit 2, one line naming file and field
expect 2 "dangling leaf" -- "$ts" topology show -t "$data/cli/bad-leaf.json"
lines "$tmp/err" 1 "dangling leaf error is one line"
has "$tmp/err" "bad-leaf.json" "error names the file"
has "$tmp/err" "nodes[1].leaf" "error names the field"
has "$tmp/err" "leaf9" "error names the value"
expect 2 "missing file" -- "$ts" topology show -t "$tmp/nope.json"
has "$tmp/err" "nope.json" "missing file named"
printf '{"format": "tsched.topology.v1", "nodes": [' > "$tmp/trunc.json"
expect 2 "truncated JSON" -- "$ts" topology show -t "$tmp/trunc.json"
has "$tmp/err" "trunc.json" "parse error names the file"
lines "$tmp/err" 1 "parse error is one line"

# usage errors
expect 2 "no command" -- "$ts"
expect 2 "unknown command" -- "$ts" frobnicate
expect 2 "show without -t" -- "$ts" topology show
expect 2 "unknown subcommand" -- "$ts" topology fly
expect 2 "bad option value" -- "$ts" topology import-slurm x.conf --gpus-per-node -3
expect 0 "help" -- "$ts" --help
has "$tmp/out" "topology show" "help lists commands"
expect 0 "version" -- "$ts" --version

# import-slurm: output is a topology the loader accepts
cat > "$tmp/t.conf" <<'CONF'
# two leaves under one spine
SwitchName=s0 Nodes=gpu[01-04]
SwitchName=s1 Nodes=gpu[05-08] LinkSpeed=200
SwitchName=top Switches=s[0-1]
CONF
expect 0 "import-slurm" -- "$ts" topology import-slurm "$tmp/t.conf" --gpus-per-node 4 -o "$tmp/imported.json"
has "$tmp/imported.json" '"format": "tsched.topology.v1"' "import-slurm format"
expect 0 "show imported" -- "$ts" topology show -t "$tmp/imported.json"
has "$tmp/out" '"nodes": 8' "imported nodes"
has "$tmp/out" '"gpus": 32' "imported gpus"
printf 'SwitchName=s0 Switches=s9\n' > "$tmp/bad.conf"
expect 2 "import-slurm dangling" -- "$ts" topology import-slurm "$tmp/bad.conf"
has "$tmp/err" "s9" "slurm error names the switch"
lines "$tmp/err" 1 "slurm error is one line"

# place: DESIGN 5.3 output, host file in rank order, exit codes
expect 0 "place" -- "$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job.json" --hostfile "$tmp/hosts" -o "$tmp/pl.json"
for f in '"format": "tsched.placement.v1"' '"job": "llm-small"' '"algorithm": "mip"' '"status": "optimal"' \
         '"rows": 4' '"cols": 2' '"beta"' '"dp_max"' '"pp_max"' '"weighted"' '"pods_used"' '"assignment"' '"rank": 7' \
         '"solve_ms"'; do
    has "$tmp/pl.json" "$f" "place output"
done
lines "$tmp/hosts" 8 "host file has one line per node"
first=$(head -n 1 "$tmp/hosts")
has "$tmp/pl.json" "\"node\": \"$first\"" "host file names placed nodes"
expect 0 "place --no-timing twice" -- "$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job.json" --no-timing --algo best-fit
cp "$tmp/out" "$tmp/p1"
"$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job.json" --no-timing --algo best-fit > "$tmp/p2"
if cmp -s "$tmp/p1" "$tmp/p2"; then ok; else bad "place output differs between runs"; fi
if grep -q solve_ms "$tmp/p1"; then bad "--no-timing still prints solve_ms"; else ok; fi
expect 2 "place bad shape" -- "$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job-bad-shape.json"
has "$tmp/err" "job-bad-shape.json" "shape error names the file"
lines "$tmp/err" 1 "shape error is one line"
expect 1 "place infeasible" -- "$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job-huge.json"
has "$tmp/err" "512 nodes" "infeasible says how many nodes"
expect 2 "place unknown algo" -- "$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job.json" --algo annealing
has "$tmp/err" "annealing" "unknown algo named"
expect 2 "place exhaustive too big" -- "$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job-24.json" --algo exhaustive
expect 2 "place bad alpha" -- "$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job.json" --alpha 2
expect 2 "place without job" -- "$ts" place -t "$data/cli/small.json"

# flows from the placement above, then routes
expect 0 "flows dp-ring" -- "$ts" flows -t "$data/cli/cluster.json" -p "$tmp/pl.json" --pattern dp-ring --gbits 5 -o "$tmp/fl.json"
has "$tmp/fl.json" '"format": "tsched.flows.v1"' "flows format"
has "$tmp/fl.json" '"gbits": 5.0' "flows carry --gbits"
has "$tmp/fl.json" '"src_nic": 7' "one flow per NIC rail"
expect 2 "flows without volumes" -- "$ts" flows -t "$data/cli/cluster.json" -p "$tmp/pl.json" --pattern dp-ring
expect 2 "flows bad pattern" -- "$ts" flows -t "$data/cli/cluster.json" -p "$tmp/pl.json" --pattern tree --gbits 1
has "$tmp/err" "tree" "bad pattern named"
expect 2 "flows bad step" -- "$ts" flows -t "$data/cli/cluster.json" -p "$tmp/pl.json" --pattern dp-ring --step 3 --gbits 1
has "$tmp/err" "step" "bad step named"
# numbers: the shortest text that reads back to the same double, an integral real keeps ".0"
expect 0 "flows --gbits 0.3" -- "$ts" flows -t "$data/cli/cluster.json" -p "$tmp/pl.json" --pattern dp-ring --gbits 0.3
if grep -qE '"gbits": 0\.3$' "$tmp/out"; then ok; else bad "0.3 does not print as 0.3: $(grep -m1 gbits "$tmp/out")"; fi
if grep -q '0\.29999' "$tmp/out"; then bad "0.3 printed with 17 digits"; else ok; fi
expect 0 "flows --gbits 12" -- "$ts" flows -t "$data/cli/cluster.json" -p "$tmp/pl.json" --pattern dp-ring --gbits 12
if grep -qE '"gbits": 12\.0$' "$tmp/out"; then ok; else bad "12 does not print as 12.0: $(grep -m1 gbits "$tmp/out")"; fi
# --compact: the same document on one line without whitespace (names here have no spaces)
compact_same() { # compact_same DESCRIPTION -- command... (run once indented, once with --compact)
    what=$1
    shift 2
    "$@" > "$tmp/indented" 2>/dev/null && "$@" --compact > "$tmp/compact" 2>/dev/null || { bad "$what: failed"; return; }
    lines "$tmp/compact" 1 "$what --compact: one line"
    if [ "$(tr -d ' \n' < "$tmp/indented")" = "$(tr -d '\n' < "$tmp/compact")" ] && ! grep -q ': ' "$tmp/compact"; then ok
    else bad "$what --compact: not the indented document without whitespace: $(head -c 200 "$tmp/compact")"; fi
}
compact_same "flows" -- "$ts" flows -t "$data/cli/cluster.json" -p "$tmp/pl.json" --pattern dp-ring --gbits 0.3
has "$tmp/compact" '"gbits":0.3}' "--compact keeps the number text"
expect 0 "route greedy" -- "$ts" route -t "$data/cli/cluster.json" -f "$tmp/fl.json" --no-timing -o "$tmp/rt1.json"
for f in '"format": "tsched.routes.v1"' '"algorithm": "greedy"' '"status": "ok"' '"max_link_flows"' \
         '"min_rate_gbps"' '"hops"' '"rate_gbps"'; do
    has "$tmp/rt1.json" "$f" "route output"
done
"$ts" route -t "$data/cli/cluster.json" -f "$tmp/fl.json" --no-timing --threads 3 -o "$tmp/rt2.json"
if cmp -s "$tmp/rt1.json" "$tmp/rt2.json"; then ok; else bad "threaded route differs from sequential"; fi
if grep -q solve_ms "$tmp/rt1.json"; then bad "--no-timing still prints solve_ms"; else ok; fi
compact_same "route" -- "$ts" route -t "$data/cli/cluster.json" -f "$tmp/fl.json" --no-timing
expect 0 "route ilp" -- "$ts" route -t "$data/cli/cluster.json" -f "$tmp/fl.json" --algo ilp --no-timing
has "$tmp/out" '"status": "optimal"' "ilp proves its answer"
expect 0 "route ecmp" -- "$ts" route -t "$data/cli/cluster.json" -f "$tmp/fl.json" --algo ecmp --seed 9
expect 2 "route unknown algo" -- "$ts" route -t "$data/cli/cluster.json" -f "$tmp/fl.json" --algo ospf
printf '{"format": "tsched.flows.v1", "flows": [{"src": "node2", "dst": "ghost"}]}' > "$tmp/badfl.json"
expect 2 "route dangling node" -- "$ts" route -t "$data/cli/cluster.json" -f "$tmp/badfl.json"
has "$tmp/err" "ghost" "dangling node named"
has "$tmp/err" "flows[0].dst" "dangling field named"

# kcut and prioritize
expect 0 "kcut crux" -- "$ts" kcut -d "$data/priority/dag-small.json" --levels 2
has "$tmp/out" '"format": "tsched.levels.v1"' "kcut format"
has "$tmp/out" '"cut_weight"' "kcut cut weight"
"$ts" kcut -d "$data/priority/dag-small.json" --levels 2 > "$tmp/k2"
if cmp -s "$tmp/out" "$tmp/k2"; then ok; else bad "kcut output differs between runs"; fi
for n in 1 2 5; do
    "$ts" kcut -d "$data/priority/dag-small.json" --levels 2 --orders 7 --threads $n > "$tmp/kt$n"
done
if cmp -s "$tmp/kt1" "$tmp/kt2" && cmp -s "$tmp/kt1" "$tmp/kt5"; then ok; else bad "kcut --threads changes the answer"; fi
compact_same "kcut" -- "$ts" kcut -d "$data/priority/dag-small.json" --levels 2
expect 2 "kcut threads not a number" -- "$ts" kcut -d "$data/priority/dag-small.json" --levels 2 --threads x
expect 2 "kcut within a tiny --limit kcut_memory" -- "$ts" --limit kcut_memory=100 kcut -d "$data/priority/dag-small.json" --levels 2
has "$tmp/err" "kcut_memory = 100" "kcut memory limit named"
lines "$tmp/err" 1 "kcut memory limit: one error line"
"$ts" --limit kcut_memory=1000000 kcut -d "$data/priority/dag-small.json" --levels 2 --orders 7 --threads 5 > "$tmp/ktm"
if cmp -s "$tmp/kt1" "$tmp/ktm"; then ok; else bad "kcut under --limit kcut_memory changes the answer"; fi
expect 0 "kcut varys" -- "$ts" kcut -d "$data/priority/dag-small.json" --levels 3 --algo varys
expect 2 "kcut cycle" -- "$ts" kcut -d "$data/priority/dag-cycle.json" --levels 2
has "$tmp/err" "cycle" "cycle named"
lines "$tmp/err" 1 "cycle error is one line"
expect 2 "kcut no levels" -- "$ts" kcut -d "$data/priority/dag-small.json"
expect 2 "kcut zero levels" -- "$ts" kcut -d "$data/priority/dag-small.json" --levels 0
expect 0 "prioritize" -- "$ts" prioritize -t "$data/priority/crux-topo.json" -s "$data/priority/crux-jobset.json" --levels 2
for f in '"format": "tsched.priorities.v1"' '"intensity"' '"priority"' '"order"' '"level"' '"dag"' '"cut_weight"'; do
    has "$tmp/out" "$f" "prioritize output"
done
compact_same "prioritize" -- "$ts" prioritize -t "$data/priority/crux-topo.json" -s "$data/priority/crux-jobset.json" --levels 2
compact_same "place" -- "$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job.json" --no-timing
compact_same "topology show" -- "$ts" topology show -t "$data/cli/cluster.json"
compact_same "topology import-slurm" -- "$ts" topology import-slurm "$data/import/block.conf"
expect 2 "prioritize job without flows" -- "$ts" prioritize -t "$data/priority/crux-topo.json" -s "$data/priority/jobset-no-flows.json" --levels 2
has "$tmp/err" "flows" "job without flows named"

# Outputs (issue 21, item 22): every output is checked before the run, and none is replaced
# unless the command succeeds (each is written next to itself and renamed at the end).
printf '%s\n' '{ "format": "tsched.trace.v1", "name": "slow", "jobs": [' \
    '  { "name": "long", "gpus": 16, "tp": 8, "compute_ms": 1, "iterations": 3000000,' \
    '    "phases": [ { "pattern": "dp-ring", "gbits": 1.0 } ] } ] }' > "$tmp/slow.json"
echo previous > "$tmp/keep.json"
bounded 2 "unwritable --timeseries refused before a long run" -- "$ts" simulate -t "$data/sim/fabric.json" \
    -w "$tmp/slow.json" --timeseries "$tmp/no-such-dir/ts.csv" -o "$tmp/keep.json"
has "$tmp/err" "no-such-dir/ts.csv: cannot open for writing" "unwritable --timeseries named"
if [ "$(cat "$tmp/keep.json")" = previous ]; then ok; else bad "-o replaced although --timeseries was unwritable"; fi
printf '{' > "$tmp/broken-trace.json"
expect 2 "outputs checked before the inputs are read" -- "$ts" simulate -t "$data/sim/fabric.json" \
    -w "$tmp/broken-trace.json" --timeseries "$tmp/no-such-dir/ts.csv" -o "$tmp/keep.json"
has "$tmp/err" "no-such-dir/ts.csv" "output checked first"
expect 2 "-o a directory" -- "$ts" simulate -t "$data/sim/fabric.json" -w "$data/sim/trace.json" -o "$tmp"
if [ -w /dev/full ]; then
    # the second output fails while it is written: the first, already written, is not replaced
    expect 3 "--timeseries /dev/full" -- "$ts" simulate -t "$data/sim/fabric.json" -w "$data/sim/trace.json" \
        --timeseries /dev/full -o "$tmp/keep.json"
    if [ "$(cat "$tmp/keep.json")" = previous ]; then ok; else bad "-o replaced although --timeseries failed"; fi
    echo previous > "$tmp/keep.hosts"
    expect 3 "place --pod-order /dev/full" -- "$ts" place -t "$data/cli/cluster.json" -j "$data/cli/job.json" \
        --algo best-fit --hostfile "$tmp/keep.hosts" --pod-order /dev/full -o "$tmp/keep.json"
    if [ "$(cat "$tmp/keep.json")" = previous ] && [ "$(cat "$tmp/keep.hosts")" = previous ]; then ok
    else bad "place replaced outputs although --pod-order failed"; fi
fi
expect 2 "a failing run" -- "$ts" simulate -t "$data/sim/fabric.json" -w "$data/sim/trace.json" \
    --routing warp -o "$tmp/keep.json" --timeseries "$tmp/keep.csv"
if [ "$(cat "$tmp/keep.json")" = previous ] && [ ! -e "$tmp/keep.csv" ]; then ok; else bad "a failing run touched its outputs"; fi
if ls -A "$tmp" | grep -q '^\.'; then bad "temporary files left: $(ls -A "$tmp" | grep '^\.')"; else ok; fi
# success replaces both; an existing file keeps its mode, a symbolic link its target
chmod 640 "$tmp/keep.json"
ln -sf keep.json "$tmp/link.json"
expect 0 "outputs replaced on success" -- "$ts" simulate -t "$data/sim/fabric.json" -w "$data/sim/trace.json" \
    --timeseries "$tmp/keep.csv" -o "$tmp/link.json" --no-timing
has "$tmp/keep.json" '"format": "tsched.simresult.v1"' "-o through a symbolic link written"
if [ -L "$tmp/link.json" ] && [ "$(stat -c %a "$tmp/keep.json")" = 640 ] && [ -s "$tmp/keep.csv" ]; then ok
else bad "link, mode or timeseries wrong after success: $(ls -l "$tmp/link.json" "$tmp/keep.json" "$tmp/keep.csv")"; fi
expect 0 "-o /dev/null" -- "$ts" simulate -t "$data/sim/fabric.json" -w "$data/sim/trace.json" -o /dev/null
for cmd in "kcut -d $data/priority/dag-small.json --levels 2" "route -t $data/cli/cluster.json -f $tmp/fl.json" \
           "cells -t $data/cli/cluster.json -j $data/cli/job.json"; do
    # shellcheck disable=SC2086
    expect 2 "$cmd: unwritable -o checked first" -- "$ts" $cmd -o "$tmp/no-such-dir/x.json"
    has "$tmp/err" "no-such-dir/x.json: cannot open for writing" "$cmd: unwritable -o named"
done

# place --pod-order (issue 21, item 14): a request of a few hundred bytes asks for 1024 pods on
# each of 32 nodes (4096 would be 17.5 MB); the size is decided before anything is written,
# against output_bytes
printf '{"format":"tsched.topology.v1","name":"f","generate":{"kind":"leaf_spine","leaves":4,"spines":2,"nodes_per_leaf":8,"gpus_per_node":8,"nic_gbps":400}}' > "$tmp/po-fabric.json"
printf '{"format":"tsched.job.v1","name":"j","gpus":256,"tp":8,"pp":4}' > "$tmp/po-job.json"
po() { # po WANT [--limit output_bytes=N] -- extra place options
    pw=$1 lim=""
    shift
    if [ "$1" != -- ]; then lim="$1 $2"; shift 2; fi
    shift
    run=bounded
    if [ "$pw" -eq 0 ]; then run=expect; fi
    # shellcheck disable=SC2086
    $run "$pw" "pod order $lim" -- "$ts" $lim place -t "$tmp/po-fabric.json" -j "$tmp/po-job.json" \
        --algo best-fit --tasks-per-node 1024 --no-timing -o "$tmp/po-pl.json" "$@"
}
"$ts" place -t "$tmp/po-fabric.json" -j "$tmp/po-job.json" --algo best-fit --tasks-per-node 1024 --no-timing \
    -o "$tmp/po-pl.json" --pod-order "$tmp/po-all.json" --hostfile "$tmp/po-all.hosts" --hostfile-per-task
size=$(($(wc -c < "$tmp/po-all.json") - 1)) # the document, without the newline the CLI adds
hsize=$(wc -c < "$tmp/po-all.hosts")
if [ "$size" -gt 4000000 ]; then ok; else bad "pod order of $size bytes, expected 4.3 MB"; fi
echo previous > "$tmp/po-keep.json"
po 2 --limit output_bytes=$((size - 1)) -- --pod-order "$tmp/po-keep.json"
has "$tmp/err" "pod order bytes: $size exceeds the limit output_bytes = $((size - 1))" "pod order limit named"
if [ "$(cat "$tmp/po-keep.json")" = previous ]; then ok; else bad "refused pod order replaced the file"; fi
po 0 --limit output_bytes=$size -- --pod-order "$tmp/po-at.json"
if cmp -s "$tmp/po-all.json" "$tmp/po-at.json"; then ok; else bad "pod order at the limit differs"; fi
po 2 --limit output_bytes=$((hsize - 1)) -- --hostfile "$tmp/po-keep.json" --hostfile-per-task
has "$tmp/err" "host file bytes: $hsize exceeds the limit output_bytes" "host file limit named"
po 0 --limit output_bytes=$hsize -- --hostfile "$tmp/po-at.hosts" --hostfile-per-task
if cmp -s "$tmp/po-all.hosts" "$tmp/po-at.hosts"; then ok; else bad "host file at the limit differs"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

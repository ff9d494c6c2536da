#!/bin/sh
# topo-sched vclos, driven as a user would (doc/vclos.md §8): outputs, exit codes, one error
# line naming the file and the field with nothing on stdout, determinism, --state round trip.
# usage: test_vclos_cli.sh PATH/TO/topo-sched TESTS_DATA_DIR
set -u
ts=$1 data=$2
tmp=${TMPDIR:-/tmp}/tsched-vclos-cli.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

. "$(dirname "$0")/cli_lib.sh"

topo=$data/vclos-leaf-spine.json
reqs=$data/vclos-requests.json
empty=$tmp/empty.json
printf '{"format": "tsched.vclos-requests.v1", "requests": []}' > "$empty"

# a run: results, jobs, waiting
expect 0 "requests" -- "$ts" vclos -t "$topo" -r "$reqs" --pattern ring
for f in '"format": "tsched.vclos.v1"' '"mode": "vclos"' '"shapes": "all"' '"status": "allocated"' \
         '"status": "released"' '"reason": "gpu"' '"waiting": [' '"solve_ms"' '"flows"' '"uplink": null'; do
    has "$tmp/out" "$f" "requests output"
done
lines "$tmp/err" 0 "nothing on stderr"
# determinism: byte-identical without timings
"$ts" vclos -t "$topo" -r "$reqs" --pattern alltoall --step 2 --no-timing > "$tmp/a.json"
"$ts" vclos -t "$topo" -r "$reqs" --pattern alltoall --step 2 --no-timing > "$tmp/b.json"
if cmp -s "$tmp/a.json" "$tmp/b.json"; then ok; else bad "two runs differ"; fi
if grep -q solve_ms "$tmp/a.json"; then bad "--no-timing keeps solve_ms"; else ok; fi
# --compact, -o
expect 0 "compact" -- "$ts" vclos -t "$topo" -r "$reqs" --compact --no-timing -o "$tmp/c.json"
lines "$tmp/c.json" 1 "compact output is one line"
lines "$tmp/out" 0 "-o writes nothing on stdout"
# --state round trip: the jobs of an output, loaded and listed again, are the same jobs
"$ts" vclos -t "$topo" -r "$reqs" --no-timing > "$tmp/s1.json"
expect 0 "state" -- "$ts" vclos -t "$topo" -r "$empty" --state "$tmp/s1.json" --no-timing -o "$tmp/s2.json"
jobs_of() { sed -n '/^  "jobs"/,/^  "waiting"/p' "$1" | sed '$d'; }
jobs_of "$tmp/s1.json" > "$tmp/j1"
jobs_of "$tmp/s2.json" > "$tmp/j2"
if [ -s "$tmp/j1" ] && cmp -s "$tmp/j1" "$tmp/j2"; then ok; else bad "state round trip changes the jobs: $(diff "$tmp/j1" "$tmp/j2" | head -5)"; fi
"$ts" vclos -t "$topo" -r "$empty" --state "$tmp/s2.json" --no-timing > "$tmp/s3.json"
if cmp -s "$tmp/s2.json" "$tmp/s3.json"; then ok; else bad "a second state round trip changes the output"; fi
# free mode with a routing
expect 0 "free mode" -- "$ts" vclos -t "$topo" -r "$reqs" --mode free --routing ecmp --seed 3 --no-timing
has "$tmp/out" '"mode": "free"' "free mode"
has "$tmp/out" '"routing": "ecmp"' "free mode routing"

# bad usage and bad input: exit 2, one line, nothing on stdout
bad2() { # bad2 DESCRIPTION TEXT -- command...
    what=$1 text=$2
    shift 2
    expect 2 "$what" "$@"
    lines "$tmp/err" 1 "$what: one error line"
    lines "$tmp/out" 0 "$what: nothing on stdout"
    has "$tmp/err" "$text" "$what"
}
req() { # req FILE BODY: a requests document
    printf '{"format": "tsched.vclos-requests.v1", "requests": [%s]}' "$2" > "$1"
}
req "$tmp/r-gpus.json" '{"op": "alloc", "job": "j1", "gpus": 1}, {"op": "alloc", "job": "j2", "gpus": 1}, {"op": "alloc", "job": "j3", "gpus": 1}, {"op": "alloc", "job": "j4", "gpus": 0}'
bad2 "gpus 0" 'r-gpus.json: requests[3].gpus: 0 is not a positive integer' -- "$ts" vclos -t "$topo" -r "$tmp/r-gpus.json"
bad2 "gpus 0 (fixture)" 'vclos-bad-requests.json: requests[3].gpus: 0 is not a positive integer' -- \
    "$ts" vclos -t "$topo" -r "$data/vclos-bad-requests.json"
req "$tmp/r-dup.json" '{"op": "alloc", "job": "j1", "gpus": 1}, {"op": "alloc", "job": "j1", "gpus": 1}'
bad2 "already allocated" 'requests[1].job: "j1" is already allocated' -- "$ts" vclos -t "$topo" -r "$tmp/r-dup.json"
req "$tmp/r-rel.json" '{"op": "release", "job": "j9"}'
bad2 "not running" 'requests[0].job: "j9" is not running' -- "$ts" vclos -t "$topo" -r "$tmp/r-rel.json"
req "$tmp/r-down.json" '{"op": "down", "name": "spine99"}'
bad2 "unknown element" 'requests[0].name: "spine99" not found' -- "$ts" vclos -t "$topo" -r "$tmp/r-down.json"
req "$tmp/r-op.json" '{"op": "alloc", "job": "a", "gpus": 1}, {"op": "release", "job": "a"}, {"op": "grow", "job": "a"}'
bad2 "unknown op" 'requests[2].op: "grow" unknown' -- "$ts" vclos -t "$topo" -r "$tmp/r-op.json"
printf '{"format": "tsched.vclos-requests.v9", "requests": []}' > "$tmp/r-fmt.json"
bad2 "unknown format" 'r-fmt.json: format: unknown format' -- "$ts" vclos -t "$topo" -r "$tmp/r-fmt.json"
req "$tmp/r-type.json" '{"op": "alloc", "job": "a", "gpus": "8"}'
bad2 "wrong type" 'requests[0].gpus: expected a positive integer, got string' -- "$ts" vclos -t "$topo" -r "$tmp/r-type.json"
printf '{"format": "tsched.vclos-requests.v1", "requests": 3}' > "$tmp/r-type2.json"
bad2 "requests not an array" 'requests: expected an array' -- "$ts" vclos -t "$topo" -r "$tmp/r-type2.json"
bad2 "--step not a number" "--step: 'x' is not a whole number" -- "$ts" vclos -t "$topo" -r "$empty" --pattern ring --step x
bad2 "--routing outside free mode" "--routing" -- "$ts" vclos -t "$topo" -r "$empty" --routing ecmp
bad2 "unknown mode" "--mode: 'fast'" -- "$ts" vclos -t "$topo" -r "$empty" --mode fast
bad2 "missing -r" "-r REQUESTS" -- "$ts" vclos -t "$topo"
bad2 "clos3 fabric" '-t: vclos needs a two-tier fabric (core0 is tier 2)' -- "$ts" vclos -t "$data/vclos-clos3.json" -r "$empty"
sed 's/"node3"/"node99"/' "$tmp/s1.json" > "$tmp/s-node.json"
if grep -q node99 "$tmp/s-node.json"; then ok; else bad "state fixture lacks node3"; fi
bad2 "--state names an unknown node" 's-node.json: jobs[' -- "$ts" vclos -t "$topo" -r "$empty" --state "$tmp/s-node.json"
has "$tmp/err" '"node99" not found' "--state unknown node named"
bad2 "--state of another mode" 'mode: "vclos" does not match' -- "$ts" vclos -t "$topo" -r "$empty" --mode free --state "$tmp/s1.json"
job0() { printf '{"name": "%s", "gpus": 2, "stage": 0, "nodes": ["node0"], "gpus_per_node": 2, "leaves": ["leaf0"], "spines": [], "links": []}' "$1"; }
printf '{"format": "tsched.vclos.v1", "mode": "vclos", "jobs": [%s, %s]}' "$(job0 a)" "$(job0 b)" > "$tmp/s-busy.json"
bad2 "--state on a node another job holds" 'jobs[1].nodes[0]: "node0" is not free enough' -- "$ts" vclos -t "$topo" -r "$empty" --state "$tmp/s-busy.json"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

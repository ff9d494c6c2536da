#!/bin/sh
# topo-sched trace (doc/sim-traces.md): the three converters, driven as a user would.
# Determinism, counts and ranges, hand-written fixtures checked field by field, one error
# line and exit 2 for every class of bad input, and a run on the real data when present.
# usage: test_trace_cli.sh PATH/TO/topo-sched TESTS_DATA_DIR [SHARED_DATA_DIR]
set -u
ts=$1 data=$2/trace shared=${3:-}
tmp=${TMPDIR:-/tmp}/tsched-trace.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

if ! command -v python3 > /dev/null 2>&1; then
    echo "python3 not found: the JSON checks need it"
    exit 77
fi

. "$(dirname "$0")/cli_lib.sh"
# fails CODE TEXT DESCRIPTION -- command...: exit CODE, one line on stderr holding TEXT, no stdout
fails() {
    want=$1 text=$2 what=$3
    shift 4
    expect "$want" "$what" -- "$@"
    lines "$tmp/err" 1 "$what: one error line"
    has "$tmp/err" "$text" "$what: the message"
    if [ -s "$tmp/out" ]; then bad "$what: wrote to stdout"; else ok; fi
}
# py DESCRIPTION SCRIPT ARGS...: a Python check; it prints its failures and exits 1
py() {
    what=$1
    shift
    if python3 "$@" > "$tmp/py" 2>&1; then ok; else bad "$what: $(head -c 1500 "$tmp/py")"; fi
}

# The structural check of tsched.trace.v1 (design/sim.md 4.1), independent of the simulator.
cat > "$tmp/valid.py" <<'EOF'
import json, math, sys
PATTERNS = {"dp-ring", "dp-hd", "pp", "alltoall"}
errs = []
def err(m):
    errs.append(m)
def number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
def whole(v, lo=1):
    return isinstance(v, int) and not isinstance(v, bool) and v >= lo
def name_ok(s):
    if not isinstance(s, str):
        return False
    b = s.encode("utf-8")
    return 1 <= len(b) <= 255 and not any(ord(c) < 0x20 or ord(c) == 0x7f or c in "~#" for c in s)
def check(path):
    with open(path, "rb") as f:
        raw = f.read()
    d = json.loads(raw.decode("utf-8"))
    if d.get("format") != "tsched.trace.v1": err("format: %r" % d.get("format"))
    if not isinstance(d.get("name"), str): err("name: not a string")
    jobs = d.get("jobs")
    if not isinstance(jobs, list): err("jobs: not an array"); return
    seen = set()
    for i, j in enumerate(jobs):
        at = "jobs[%d]" % i
        if not isinstance(j, dict): err(at + ": not an object"); continue
        n = j.get("name")
        if not name_ok(n): err(at + ".name: %r" % n)
        if n in seen: err(at + ".name: %r twice" % n)
        seen.add(n)
        if "arrival_s" in j and not (number(j["arrival_s"]) and j["arrival_s"] >= 0): err(at + ".arrival_s")
        nodes = j.get("nodes")
        if nodes is not None:
            if not (isinstance(nodes, list) and nodes and all(name_ok(x) for x in nodes) and len(set(nodes)) == len(nodes)):
                err(at + ".nodes")
        elif not whole(j.get("gpus")): err(at + ".gpus: %r" % j.get("gpus"))
        for k in ("tp", "pp"):
            if k in j and not whole(j[k]): err(at + "." + k)
        if not (number(j.get("compute_ms")) and j["compute_ms"] > 0): err(at + ".compute_ms")
        if "overlap" in j and not (number(j["overlap"]) and 0 <= j["overlap"] <= 1): err(at + ".overlap")
        if ("iterations" in j) == ("duration_s" in j): err(at + ": exactly one of iterations and duration_s")
        if "iterations" in j and not whole(j["iterations"]): err(at + ".iterations")
        if "duration_s" in j and not (number(j["duration_s"]) and j["duration_s"] > 0): err(at + ".duration_s")
        if "censored" in j and j["censored"] is not True: err(at + ".censored")
        if "level" in j and not whole(j["level"], 0): err(at + ".level")
        ph = j.get("phases")
        if not (isinstance(ph, list) and ph): err(at + ".phases"); continue
        for k, p in enumerate(ph):
            pa = "%s.phases[%d]" % (at, k)
            if ("pattern" in p) == ("flows" in p): err(pa + ": exactly one of pattern and flows"); continue
            if "repeat" in p and not whole(p["repeat"]): err(pa + ".repeat")
            if "gbits" in p and not (number(p["gbits"]) and p["gbits"] > 0): err(pa + ".gbits")
            if "pattern" in p:
                if p["pattern"] not in PATTERNS: err(pa + ".pattern")
                if "gbits" not in p and not isinstance(j.get("model"), dict): err(pa + ": no gbits and no model")
                continue
            if nodes is None: err(pa + ".flows: no nodes"); continue
            for m, fl in enumerate(p["flows"]):
                fa = "%s.flows[%d]" % (pa, m)
                s, t = fl.get("src"), fl.get("dst")
                if not (whole(s, 0) and whole(t, 0) and s < len(nodes) and t < len(nodes)): err(fa + ": rank")
                elif nodes[s] == nodes[t]: err(fa + ": same node")
                if not (number(fl.get("gbits")) and fl["gbits"] > 0): err(fa + ".gbits")
for p in sys.argv[1:]:
    check(p)
for e in errs[:20]:
    print(e)
sys.exit(1 if errs else 0)
EOF

expect 0 "trace --help" -- "$ts" trace --help
has "$tmp/out" "convert-alibaba POD_CSV" "trace --help"
expect 0 "trace poisson -h" -- "$ts" trace poisson -h
has "$tmp/out" "lognormal:MU,SIGMA" "trace poisson -h"

# ---------------------------------------------------------------- same bytes as the original converters
# tests/data/trace/golden: outputs written once by the topo-sched of commit fa77abc, before the
# converters moved into the library (src/sim/trace_*.c, trace_convert.h); see golden/cases and gen.sh.
ngold=0
while read -r gname gargs; do
    case $gname in '#'* | '') continue ;; esac
    # shellcheck disable=SC2086
    expect 0 "golden $gname" -- "$ts" $(printf '%s' "$gargs" | sed "s|@D@|$data|g")
    if cmp -s "$tmp/out" "$data/golden/$gname.json"; then ok; else bad "golden $gname: not the original converter's bytes"; fi
    ngold=$((ngold + 1))
done < "$data/golden/cases"
[ "$ngold" -ge 13 ] && ok || bad "golden: only $ngold cases read"

# ---------------------------------------------------------------- poisson
P="--jobs 200 --mean-interarrival-s 5 --sizes 1:1,8:3,64:0.5 --duration-dist exp:3600"
expect 0 "poisson seed 7" -- "$ts" trace poisson $P --seed 7 -o "$tmp/p7a.json"
lines "$tmp/err" 0 "poisson prints nothing on stderr"
expect 0 "poisson seed 7 again" -- "$ts" trace poisson $P --seed 7 -o "$tmp/p7b.json"
expect 0 "poisson seed 8" -- "$ts" trace poisson $P --seed 8 -o "$tmp/p8.json"
expect 0 "poisson to stdout" -- "$ts" trace poisson $P --seed 7
if cmp -s "$tmp/p7a.json" "$tmp/p7b.json"; then ok; else bad "poisson: same seed, different bytes"; fi
if cmp -s "$tmp/out" "$tmp/p7a.json"; then ok; else bad "poisson: -o and stdout differ"; fi
if cmp -s "$tmp/p7a.json" "$tmp/p8.json"; then bad "poisson: seeds 7 and 8 give the same trace"; else ok; fi
expect 0 "poisson --compact" -- "$ts" trace poisson $P --seed 7 --compact
lines "$tmp/out" 1 "--compact writes one line"
py "poisson traces are valid" "$tmp/valid.py" "$tmp/p7a.json" "$tmp/p8.json" "$tmp/out"

# Many jobs: counts, order, sizes from the set, means within many standard errors.
expect 0 "poisson 20000 jobs" -- "$ts" trace poisson --jobs 20000 --mean-interarrival-s 5 --sizes 1:1,8:3 \
    --duration-dist exp:100 --seed 3 --compact -o "$tmp/big.json"
cat > "$tmp/big.py" <<'EOF'
import json, math, sys
j = json.load(open(sys.argv[1]))["jobs"]
bad = []
if len(j) != 20000: bad.append("%d jobs" % len(j))
a = [x["arrival_s"] for x in j]
if not all(a[i] < a[i + 1] for i in range(len(a) - 1)): bad.append("arrivals not increasing")
if a[0] <= 0: bad.append("first arrival %r, expected the first draw (> 0)" % a[0])
# mean inter-arrival: standard error 5 / sqrt(20000) = 0.035; allow 0.25 (7 errors)
if abs(a[-1] / len(a) - 5) > 0.25: bad.append("mean inter-arrival %g, expected 5" % (a[-1] / len(a)))
sizes = [x["gpus"] for x in j]
if set(sizes) - {1, 8}: bad.append("sizes outside {1, 8}: %s" % sorted(set(sizes) - {1, 8}))
f8 = sizes.count(8) / len(sizes)
if abs(f8 - 0.75) > 0.03: bad.append("share of 8-GPU jobs %g, expected 0.75" % f8)
d = [x["duration_s"] for x in j]
if min(d) <= 0: bad.append("a duration <= 0")
if abs(sum(d) / len(d) - 100) > 5: bad.append("mean duration %g, expected 100" % (sum(d) / len(d)))
if [x["name"] for x in j[:3]] != ["job0", "job1", "job2"]: bad.append("names %r" % [x["name"] for x in j[:3]])
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
py "poisson 20000: counts and ranges" "$tmp/big.py" "$tmp/big.json"
py "poisson 20000: valid" "$tmp/valid.py" "$tmp/big.json"

expect 0 "poisson fixed and lognormal" -- "$ts" trace poisson --jobs 2000 --mean-interarrival-s 1 --sizes 16:1 \
    --duration-dist lognormal:4,0.5 --seed 1 --gbits 2.5 --compute-ms 250 -o "$tmp/ln.json"
cat > "$tmp/ln.py" <<'EOF'
import json, math, sys
j = json.load(open(sys.argv[1]))["jobs"]
bad = []
logs = sorted(math.log(x["duration_s"]) for x in j)
med = logs[len(logs) // 2]
# the median of ln(duration) is MU = 4; its standard error is about 1.25 * 0.5 / sqrt(2000) = 0.014
if abs(med - 4) > 0.1: bad.append("median ln duration %g, expected 4" % med)
if any(x["gpus"] != 16 or x["compute_ms"] != 250 or x["phases"] != [{"pattern": "dp-ring", "gbits": 2.5}] for x in j):
    bad.append("sizes, compute_ms or phases not as given: %r" % j[0])
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
py "poisson lognormal" "$tmp/ln.py" "$tmp/ln.json"
expect 0 "poisson fixed" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 --sizes 2:1 --duration-dist fixed:60
has "$tmp/out" '"duration_s": 60' "fixed duration"

# with a model mix: the draw is seeded, fields copied, tp/pp fall back where they do not divide
expect 0 "poisson with a mix" -- "$ts" trace poisson --jobs 400 --mean-interarrival-s 1 --sizes 1:1,8:1,16:1 \
    --duration-dist fixed:10 --model-mix "$data/mix.json" --seed 5 -o "$tmp/pm.json"
cat > "$tmp/pm.py" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))["jobs"]
mix = json.load(open(sys.argv[2]))["models"]
bad = []
names = [x.get("model_name") for x in j]
if set(names) != {"gpt", "bert"}: bad.append("models drawn: %s" % set(names))
share = names.count("gpt") / len(names)
if abs(share - 0.75) > 0.1: bad.append("share of gpt %g, expected 0.75 (weights 3 and 1)" % share)
for x in j:
    m = mix[0] if x["model_name"] == "gpt" else mix[1]
    tp, pp = m.get("tp", 8), m.get("pp", 1)
    if x["gpus"] % (tp * pp): tp, pp = 8, 1
    want = {"tp": tp, "pp": pp, "compute_ms": m["compute_ms"], "phases": m["phases"]}
    if "overlap" in m: want["overlap"] = m["overlap"]
    if "model" in m: want["model"] = m["model"]
    for k, v in want.items():
        if x.get(k) != v: bad.append("%s.%s: %r, expected %r" % (x["name"], k, x.get(k), v))
    if "overlap" not in m and "overlap" in x: bad.append("%s: overlap invented" % x["name"])
print("\n".join(bad[:10]))
sys.exit(1 if bad else 0)
EOF
py "poisson with a mix: fields" "$tmp/pm.py" "$tmp/pm.json" "$data/mix.json"
py "poisson with a mix: valid" "$tmp/valid.py" "$tmp/pm.json"
expect 0 "poisson with a mix, --gpus-per-node 4" -- "$ts" trace poisson --jobs 5 --mean-interarrival-s 1 \
    --sizes 2:1 --duration-dist fixed:10 --model-mix "$data/mix.json" --gpus-per-node 4 --compact
has "$tmp/out" '"tp":4,"pp":1' "tp falls back to --gpus-per-node"

# ---------------------------------------------------------------- convert-alibaba fixture
expect 0 "convert-alibaba fixture" -- "$ts" trace convert-alibaba "$data/pods.csv" -o "$tmp/ali.json"
lines "$tmp/err" 0 "convert-alibaba prints nothing on stderr"
cat > "$tmp/ali.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
scale = int(sys.argv[2])
want = [  # name, arrival_s, gpus, duration_s, censored
    ("pod-openb-pod-a", 0, 1, 390, False),
    ("pod-openb-pod-b", 100, 1, 50, False),   # gpu_milli 460: one GPU; Running but deleted before the end
    ("pod-openb-pod-c", 200, 8, 690, True),   # Running at the trace's end (1000)
    ("pod-openb-pod-g", 400, 4, 280, False),  # quoted fields
    ("pod-openb_pod_h", 500, 1, 100, False),  # openb~pod#h cleaned
]   # dropped: d (Pending), e (no GPU, earliest creation), f (duration 0)
bad = []
if d.get("name") != "pods.csv": bad.append("name %r" % d.get("name"))
j = d["jobs"]
if len(j) != len(want): bad.append("%d jobs, expected %d: %r" % (len(j), len(want), [x["name"] for x in j]))
for x, (n, a, g, du, c) in zip(j, want):
    got = (x["name"], x["arrival_s"], x["gpus"], x["duration_s"], x.get("censored", False))
    if got != (n, a, g * scale, du, c): bad.append("%r, expected %r" % (got, (n, a, g * scale, du, c)))
    if isinstance(x["arrival_s"], float) or isinstance(x["duration_s"], float): bad.append(n + ": whole seconds printed as reals")
    if len(sys.argv) < 4 and (x["compute_ms"] != 1000 or x["phases"] != [{"pattern": "dp-ring", "gbits": 1}]):
        bad.append(n + ": default compute_ms / phase: %r %r" % (x["compute_ms"], x["phases"]))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
py "convert-alibaba fixture: every field" "$tmp/ali.py" "$tmp/ali.json" 1
py "convert-alibaba fixture: valid" "$tmp/valid.py" "$tmp/ali.json"
expect 0 "convert-alibaba --scale-gpus 4" -- "$ts" trace convert-alibaba "$data/pods.csv" --scale-gpus 4 -o "$tmp/ali4.json"
py "convert-alibaba --scale-gpus 4" "$tmp/ali.py" "$tmp/ali4.json" 4
expect 0 "convert-alibaba from stdin" -- sh -c "'$ts' trace convert-alibaba - < '$data/pods.csv'"
has "$tmp/out" '"name": "-"' "stdin trace named -"
expect 0 "convert-alibaba with a mix" -- "$ts" trace convert-alibaba "$data/pods.csv" --model-mix "$data/mix.json" \
    --scale-gpus 2 --seed 9 -o "$tmp/alim.json"
py "convert-alibaba with a mix: times untouched" "$tmp/ali.py" "$tmp/alim.json" 2 mix
py "convert-alibaba with a mix: model fields" "$tmp/pm.py" "$tmp/alim.json" "$data/mix.json"
expect 0 "convert-alibaba with a mix, same seed" -- "$ts" trace convert-alibaba "$data/pods.csv" \
    --model-mix "$data/mix.json" --scale-gpus 2 --seed 9 -o "$tmp/alim2.json"
if cmp -s "$tmp/alim.json" "$tmp/alim2.json"; then ok; else bad "convert-alibaba: same seed, different bytes"; fi
expect 0 "convert-alibaba --gbits --compute-ms" -- "$ts" trace convert-alibaba "$data/pods.csv" --gbits 0.25 \
    --compute-ms 40 --compact
has "$tmp/out" '"compute_ms":40,"duration_s":390,"phases":[{"pattern":"dp-ring","gbits":0.25}]' "defaults overridden"

# ---------------------------------------------------------------- convert-dcn fixture
expect 0 "convert-dcn fixture" -- "$ts" trace convert-dcn "$data/dcn/ring_size_2" --seed 4 -o "$tmp/dcn.json"
lines "$tmp/err" 0 "convert-dcn prints nothing on stderr"
cat > "$tmp/dcn.py" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
j = d["jobs"]
bad = []
want = [
    ("job_0-BLOOM", ["node0", "node1"], [(0, 1, 2), (1, 0, 2)]),
    ("job_2-GPT_3", ["node32", "node64", "node2047"], [(0, 1, 0.5), (1, 2, 0.5), (2, 0, 0.5)]),
    ("job_10-LLaMA2_70B", ["node104", "node105"], [(0, 1, 1)]),   # job 10 after job 2: numeric order
]
if len(j) != 3: bad.append("%d jobs: %r" % (len(j), [x.get("name") for x in j]))
for x, (n, nodes, flows) in zip(j, want):
    if x["name"] != n: bad.append("name %r, expected %r" % (x["name"], n))
    if x["nodes"] != nodes: bad.append("%s: nodes %r" % (n, x["nodes"]))
    got = [(f["src"], f["dst"], f["gbits"]) for f in x["phases"][0]["flows"]]
    if got != flows or len(x["phases"]) != 1: bad.append("%s: flows %r" % (n, got))
    if x["iterations"] != 10 or x["compute_ms"] != 1: bad.append("%s: iterations / compute_ms" % n)
    if not (0 <= x["arrival_s"] < 10): bad.append("%s: arrival %r outside [0, 10)" % (n, x["arrival_s"]))
    if "gpus" in x or "duration_s" in x: bad.append("%s: gpus or duration_s set" % n)
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
py "convert-dcn fixture: every field" "$tmp/dcn.py" "$tmp/dcn.json"
py "convert-dcn fixture: valid" "$tmp/valid.py" "$tmp/dcn.json"
expect 0 "convert-dcn same seed" -- "$ts" trace convert-dcn "$data/dcn/ring_size_2" --seed 4 -o "$tmp/dcn2.json"
if cmp -s "$tmp/dcn.json" "$tmp/dcn2.json"; then ok; else bad "convert-dcn: same seed, different bytes"; fi
expect 0 "convert-dcn other seed" -- "$ts" trace convert-dcn "$data/dcn/ring_size_2" --seed 5 -o "$tmp/dcn3.json"
if cmp -s "$tmp/dcn.json" "$tmp/dcn3.json"; then bad "convert-dcn: seeds 4 and 5 give the same arrivals"; else ok; fi
expect 0 "convert-dcn options" -- "$ts" trace convert-dcn "$data/dcn/ring_size_2/" --compute-ms 1009.6 --compact
has "$tmp/out" '"compute_ms":1009.6,"iterations":10' "convert-dcn --compute-ms"

# ---------------------------------------------------------------- bad input: exit 2, one line
fails 2 "--sizes: weight of 8 is -1" "negative size weight" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 \
    --sizes 1:1,8:-1 --duration-dist fixed:1
fails 2 "--sizes: weight of 8 is 0" "zero size weight" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 \
    --sizes 8:0 --duration-dist fixed:1
fails 2 "--sizes: size '0'" "size 0" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 --sizes 0:1 --duration-dist fixed:1
fails 2 "--sizes: 'x' is not SIZE:WEIGHT" "size spec" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 --sizes x \
    --duration-dist fixed:1
# times a trace cannot hold (simulate refuses them): refused when asked for, or when drawn
fails 2 "--duration-dist: fixed duration '1e300'" "fixed duration past the clock" -- "$ts" trace poisson --jobs 3 \
    --mean-interarrival-s 1 --sizes 8:1 --duration-dist fixed:1e300
fails 2 "--duration-dist: exp mean '1e-300'" "exp mean under a nanosecond" -- "$ts" trace poisson --jobs 3 \
    --mean-interarrival-s 1 --sizes 8:1 --duration-dist exp:1e-300
fails 2 "--mean-interarrival-s: '1e300'" "inter-arrival past the clock" -- "$ts" trace poisson --jobs 3 \
    --mean-interarrival-s 1e300 --sizes 8:1 --duration-dist fixed:1
fails 2 "job 0's duration would be" "a drawn duration past the clock" -- "$ts" trace poisson --jobs 3 \
    --mean-interarrival-s 1 --sizes 8:1 --duration-dist lognormal:30,0
fails 2 "--arrival-window-s: '1e300'" "arrival window past the clock" -- "$ts" trace convert-dcn "$data/dcn/ring_size_2" \
    --arrival-window-s 1e300
fails 2 "--sizes: size 4 given twice" "repeated size" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 \
    --sizes 4:1,4:2 --duration-dist fixed:1
fails 2 "--sizes: weight of 2 is 'abc'" "weight not a number" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 \
    --sizes 2:abc --duration-dist fixed:1
fails 2 "--duration-dist: unknown distribution 'weibull'" "unknown distribution" -- "$ts" trace poisson --jobs 3 \
    --mean-interarrival-s 1 --sizes 1:1 --duration-dist weibull:1
fails 2 "--duration-dist: exp mean '-3'" "negative exp mean" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 \
    --sizes 1:1 --duration-dist exp:-3
fails 2 "--duration-dist: fixed duration '0'" "zero fixed duration" -- "$ts" trace poisson --jobs 3 \
    --mean-interarrival-s 1 --sizes 1:1 --duration-dist fixed:0
fails 2 "--duration-dist: lognormal needs MU,SIGMA" "lognormal without sigma" -- "$ts" trace poisson --jobs 3 \
    --mean-interarrival-s 1 --sizes 1:1 --duration-dist lognormal:3
fails 2 "SIGMA '-1'" "negative sigma" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 --sizes 1:1 \
    --duration-dist lognormal:3,-1
fails 2 "lognormal:800,1" "lognormal overflow" -- "$ts" trace poisson --jobs 3 --mean-interarrival-s 1 --sizes 1:1 \
    --duration-dist lognormal:800,1
fails 2 "--jobs: '0'" "zero jobs" -- "$ts" trace poisson --jobs 0 --mean-interarrival-s 1 --sizes 1:1 --duration-dist fixed:1
fails 2 "--mean-interarrival-s: '-2'" "negative mean" -- "$ts" trace poisson --jobs 1 --mean-interarrival-s -2 --sizes 1:1 \
    --duration-dist fixed:1
fails 2 "are required" "missing --sizes" -- "$ts" trace poisson --jobs 1 --mean-interarrival-s 1 --duration-dist fixed:1
fails 2 "--seed: 'x1'" "bad seed" -- "$ts" trace poisson --jobs 1 --mean-interarrival-s 1 --sizes 1:1 \
    --duration-dist fixed:1 --seed x1
fails 2 "--gbits: '0'" "zero gbits" -- "$ts" trace poisson --jobs 1 --mean-interarrival-s 1 --sizes 1:1 \
    --duration-dist fixed:1 --gbits 0
fails 2 "--compute-ms: 'nan'" "nan compute" -- "$ts" trace poisson --jobs 1 --mean-interarrival-s 1 --sizes 1:1 \
    --duration-dist fixed:1 --compute-ms nan
fails 2 "unknown or incomplete option '--bogus'" "unknown option" -- "$ts" trace poisson --bogus
fails 2 "trace: unknown subcommand 'convert-slurm'" "unknown subcommand" -- "$ts" trace convert-slurm
fails 2 "trace: expected convert-alibaba" "no subcommand" -- "$ts" trace

# model mixes
mix() { printf '%s\n' "$2" > "$tmp/$1.json"; }
mix mixfmt '{"format": "tsched.model-mix.v2", "models": []}'
mix mixw '{"format": "tsched.model-mix.v1", "models": [{"weight": -1, "compute_ms": 1, "phases": [{"pattern": "pp", "gbits": 1}]}]}'
mix mixc '{"format": "tsched.model-mix.v1", "models": [{"compute_ms": 0, "phases": [{"pattern": "pp", "gbits": 1}]}]}'
mix mixph '{"format": "tsched.model-mix.v1", "models": [{"compute_ms": 5}]}'
mix mixpat '{"format": "tsched.model-mix.v1", "models": [{"compute_ms": 5, "phases": [{"pattern": "ring", "gbits": 1}]}]}'
mix mixvol '{"format": "tsched.model-mix.v1", "models": [{"compute_ms": 5, "phases": [{"pattern": "pp"}]}]}'
mix mixov '{"format": "tsched.model-mix.v1", "models": [{"compute_ms": 5, "overlap": 1.5, "phases": [{"pattern": "pp", "gbits": 1}]}]}'
mix mixtp '{"format": "tsched.model-mix.v1", "models": [{"compute_ms": 5, "tp": 0, "phases": [{"pattern": "pp", "gbits": 1}]}]}'
mix mixjson '{"format": "tsched.model-mix.v1", "models": [}'
for case in "mixfmt:format: expected \"tsched.model-mix.v1\", got \"tsched.model-mix.v2\"" \
    "mixw:models[0].weight: expected a number > 0" "mixc:models[0].compute_ms: required" \
    "mixph:models[0].phases: required" "mixpat:models[0].phases[0].pattern" "mixvol:models[0].phases[0].gbits: missing" \
    "mixov:models[0].overlap" "mixtp:models[0].tp" "mixjson:mixjson.json:1:"; do
    f=${case%%:*} msg=${case#*:}
    fails 2 "$msg" "model mix $f" -- "$ts" trace poisson --jobs 1 --mean-interarrival-s 1 --sizes 1:1 \
        --duration-dist fixed:1 --model-mix "$tmp/$f.json"
    fails 2 "$f.json" "model mix $f names the file (convert-alibaba)" -- "$ts" trace convert-alibaba "$data/pods.csv" \
        --model-mix "$tmp/$f.json"
done
fails 2 "$tmp/none.json: cannot open" "missing mix" -- "$ts" trace poisson --jobs 1 --mean-interarrival-s 1 --sizes 1:1 \
    --duration-dist fixed:1 --model-mix "$tmp/none.json"

# Alibaba CSVs
H=name,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time
csv() { printf '%s\n' "$2" > "$tmp/$1.csv"; }
csv nocol "name,num_gpu,pod_phase,creation_time,deletion_time,scheduled_time"
csv gpu "$H
p1,1,1000,Running,0,10,0
p2,one,1000,Running,0,10,0"
csv neg "$H
p1,1,1000,Running,0,10,0
p2,1,1000,Running,-5,10,0"
csv fields "$H
p1,1,1000,Running,0,10"
csv quote "$H
\"p1,1,1000,Running,0,10,0"
csv time "$H
p1,1,1000,Running,0,1e999,0"
csv create "$H
p1,1,1000,Running,,10,0"
csv milli "$H
p1,1,half,Running,0,10,0"
csv name "$H
,1,1000,Running,0,10,0"
# issue 21 item 5: nothing after a closing quote, decimal numbers only
csv junk "$H
\"p1\"x,1,1000,Running,0,10,0"
csv junk2 "$H
p1,1,1000,\"Running\" x,0,10,0"
csv hexc "$H
p1,1,1000,Running,0x10,100,20"
csv hexs "$H
p1,1,1000,Running,10,100,0X1p4"
csv hexg "$H
p1,0x1,1000,Running,10,100,20"
csv infd "$H
p1,1,1000,Running,10,inf,20"
: > "$tmp/empty.csv"
for case in "junk:junk.csv:2: name: '\"p1\"x' has text after the closing quote" \
    "junk2:junk2.csv:2: pod_phase: '\"Running\" x' has text after the closing quote" \
    "hexc:hexc.csv:2: creation_time: '0x10' is not a number of seconds" \
    "hexs:hexs.csv:2: scheduled_time: '0X1p4' is not a number of seconds" \
    "hexg:hexg.csv:2: num_gpu: '0x1' is not a whole number" \
    "infd:infd.csv:2: deletion_time: 'inf' is not a number of seconds"; do
    f=${case%%:*} msg=${case#*:}
    fails 2 "$msg" "alibaba csv $f" -- "$ts" trace convert-alibaba "$tmp/$f.csv"
done
printf '%s\n"p 1" ,1,,Running,1,5.5,.5\n"a""b",2,,Running,1e0,5.,2E+0\n' "$H" > "$tmp/quotes-ok.csv"
expect 0 "alibaba csv: spaces after a closing quote, decimal forms" -- "$ts" trace convert-alibaba "$tmp/quotes-ok.csv" --compact
has "$tmp/out" '"name":"pod-p 1","arrival_s":0,"gpus":1,"compute_ms":1000,"duration_s":5' "quoted name with a space"
has "$tmp/out" '"name":"pod-a\"b"' "doubled quote"
for case in "nocol:nocol.csv:1: the header has no column 'gpu_milli'" "gpu:gpu.csv:3: num_gpu: 'one' is not a whole number" \
    "neg:neg.csv:3: creation_time: '-5' is negative" "fields:fields.csv:2: 6 fields, the header has 7" \
    "quote:quote.csv:2: unterminated quote" "time:time.csv:2: deletion_time: '1e999'" \
    "create:create.csv:2: creation_time: empty" "milli:milli.csv:2: gpu_milli: 'half'" "name:name.csv:2: name: empty" \
    "empty:empty.csv: empty file"; do
    f=${case%%:*} msg=${case#*:}
    fails 2 "$msg" "alibaba csv $f" -- "$ts" trace convert-alibaba "$tmp/$f.csv"
done
fails 2 "$tmp/none.csv: cannot open" "missing csv" -- "$ts" trace convert-alibaba "$tmp/none.csv"
fails 2 "--scale-gpus: '3' is not a power of two" "scale not a power of two" -- "$ts" trace convert-alibaba \
    "$data/pods.csv" --scale-gpus 3
printf 'name,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time\np,65536,1000,Running,0,9,0\n' > "$tmp/huge.csv"
fails 2 "huge.csv:2: num_gpu: 65536 times --scale-gpus 65536 is above 4294967295" "GPU count overflow" -- "$ts" trace \
    convert-alibaba "$tmp/huge.csv" --scale-gpus 65536
fails 2 "--gpus-per-node: '0'" "zero gpus per node" -- "$ts" trace convert-alibaba "$data/pods.csv" --gpus-per-node 0
fails 2 "POD_CSV is required" "no csv" -- "$ts" trace convert-alibaba
fails 2 "one POD_CSV expected" "two csvs" -- "$ts" trace convert-alibaba "$data/pods.csv" "$data/pods.csv"
fails 2 "at most one '-'" "two stdins" -- "$ts" trace convert-alibaba - --model-mix -
head -c 2000 /dev/zero > "$tmp/zero.csv"
fails 2 "NUL byte" "binary csv" -- "$ts" trace convert-alibaba "$tmp/zero.csv"
fails 2 "input_bytes" "csv above the input limit" -- "$ts" --limit input_bytes=100 trace convert-alibaba "$data/pods.csv"

# dcn folders
D=$tmp/dcnbad
HD='#src dst src_tor dst_tor start_time flow_size compute_time stage_index'
dcn() { rm -rf "$D"; mkdir -p "$D"; printf '%s\n' "$HD" "$2" > "$D/$1"; }
dcn job_0-A.txt "95 96 0 0 0 1 0 0"
fails 2 "job_0-A.txt:2: src: 95 is not a server vertex (96..2143)" "dcn vertex out of range" -- "$ts" trace convert-dcn "$D"
dcn job_0-A.txt "96 2144 0 64 0 1 0 0"
fails 2 "job_0-A.txt:2: dst: 2144 is not a server vertex" "dcn dst out of range" -- "$ts" trace convert-dcn "$D"
dcn job_0-A.txt "96 200 0 2 0 1 0 0"
fails 2 "job_0-A.txt:2: dst_tor: 2, but server vertex 200 sits under ToR 3" "dcn ToR mismatch" -- "$ts" trace convert-dcn "$D"
dcn job_0-A.txt "96 96 0 0 0 1 0 0"
fails 2 "job_0-A.txt:2: dst: flow from server vertex 96 to itself" "dcn self flow" -- "$ts" trace convert-dcn "$D"
dcn job_0-A.txt "96 97 0 0 0 0 0 0"
fails 2 "job_0-A.txt:2: flow_size: 0 bits" "dcn empty flow" -- "$ts" trace convert-dcn "$D"
dcn job_0-A.txt "96 97 0 0 0 1 0"
fails 2 "job_0-A.txt:2: expected 8 whole numbers" "dcn short line" -- "$ts" trace convert-dcn "$D"
dcn job_0-A.txt "96 97 0 0 0 -1 0 0"
fails 2 "job_0-A.txt:2: expected 8 whole numbers" "dcn negative size" -- "$ts" trace convert-dcn "$D"
dcn job_0-A.txt ""
fails 2 "job_0-A.txt: no flows" "dcn no flows" -- "$ts" trace convert-dcn "$D"
rm -rf "$D"; mkdir -p "$D"; printf 'src dst\n96 97 0 0 0 1 0 0\n' > "$D/job_0-A.txt"
fails 2 "job_0-A.txt:1: expected the header" "dcn header" -- "$ts" trace convert-dcn "$D"
dcn job_0-A.txt "96 97 0 0 0 1 0 0"; cp "$D/job_0-A.txt" "$D/job_00-B.txt"
fails 2 "job number 0 twice" "dcn repeated job number" -- "$ts" trace convert-dcn "$D"
rm -rf "$D"; mkdir -p "$D"
fails 2 "no job_<K>-<MODEL>.txt files" "dcn empty folder" -- "$ts" trace convert-dcn "$D"
fails 2 "cannot open the folder" "dcn missing folder" -- "$ts" trace convert-dcn "$tmp/nowhere"
fails 2 "--model-mix does not apply" "dcn with a mix" -- "$ts" trace convert-dcn "$data/dcn/ring_size_2" --model-mix x
fails 2 "--iterations: '0'" "dcn zero iterations" -- "$ts" trace convert-dcn "$data/dcn/ring_size_2" --iterations 0

# issue 21 item 17: every input is read by the library's bounded reader, which stops at the
# first NUL byte (after one read of /dev/zero, not after input_bytes of it)
fails 2 "/dev/zero: byte 0 is a NUL byte" "csv /dev/zero stops at the first NUL" -- "$ts" trace convert-alibaba /dev/zero
fails 2 "/dev/zero: byte 0 is a NUL byte" "mix /dev/zero stops at the first NUL" -- "$ts" trace poisson --jobs 1 \
    --mean-interarrival-s 1 --sizes 1:1 --duration-dist fixed:1 --model-mix /dev/zero
fails 2 "/dev/zero: byte 0 is a NUL byte" "alibaba mix /dev/zero" -- "$ts" trace convert-alibaba "$data/pods.csv" \
    --model-mix /dev/zero
{ printf 'abc'; head -c 500 /dev/zero; } > "$tmp/nul3.csv"
fails 2 "nul3.csv: byte 3 is a NUL byte" "csv: the NUL before the limit" -- "$ts" --limit input_bytes=100 trace \
    convert-alibaba "$tmp/nul3.csv"
rm -rf "$D"; mkdir -p "$D"; { printf '%s\n' "$HD"; head -c 500 /dev/zero; } > "$D/job_0-A.txt"
fails 2 "job_0-A.txt: byte 71 is a NUL byte" "dcn: the NUL before the limit" -- "$ts" --limit input_bytes=100 trace \
    convert-dcn "$D"
# item 18: a FIFO named like a job file is refused at once (it used to wait for a writer)
rm -rf "$D"; mkdir -p "$D"; printf '%s\n96 97 0 0 0 1 0 0\n' "$HD" > "$D/job_0-A.txt"
if command -v mkfifo > /dev/null 2>&1 && command -v timeout > /dev/null 2>&1 && mkfifo "$D/job_1-X.txt"; then
    fails 2 "job_1-X.txt: not a regular file" "dcn FIFO job file" -- timeout 20 "$ts" trace convert-dcn "$D"
    rm -f "$D/job_1-X.txt"; ln -s /dev/zero "$D/job_1-X.txt"
    fails 2 "job_1-X.txt: not a regular file" "dcn device job file" -- timeout 20 "$ts" trace convert-dcn "$D"
else
    echo "SKIP: no mkfifo or timeout: the FIFO case did not run"
fi

# ---------------------------------------------------------------- issue 21 item 21: what a converter writes, simulate loads
# Seeded random option values near every bound: the converter either refuses with exit 2 and
# one line naming the option (or the CSV column), or `simulate` loads its output (and runs it
# for a microsecond) on a fabric of 2 x 32 one-GPU nodes (the dcn wiring of node0..node63).
cat > "$tmp/fab.json" <<'EOF2'
{ "format": "tsched.topology.v1", "name": "bounds",
  "generate": { "kind": "leaf_spine", "leaves": 2, "spines": 1, "nodes_per_leaf": 32, "gpus_per_node": 1, "nic_gbps": 100 } }
EOF2
cat > "$tmp/bounds.py" <<'EOF2'
import json, math, os, random, subprocess, sys
ts, tmp, data = sys.argv[1], sys.argv[2], sys.argv[3]
rnd = random.Random(21)
H = "name,num_gpu,gpu_milli,pod_phase,creation_time,deletion_time,scheduled_time"
bad, runs = [], [0, 0]
def near(lo, hi):
    """values at, just inside and just outside [lo, hi], and a few log-uniform ones around it"""
    v = [lo, hi, lo * (1 - 1e-12), hi * (1 + 1e-12), lo / 2, hi * 2]
    if lo > 0:
        v += [math.nextafter(lo, 0), math.nextafter(lo, math.inf)]
        v += [10 ** rnd.uniform(math.log10(lo) - 2, math.log10(hi) + 2) for _ in range(3)]
    v += [math.nextafter(hi, 0), math.nextafter(hi, math.inf)]
    return sorted(set(v))
def fmt(x):
    return repr(float(x)) if isinstance(x, float) else str(x)
def case(what, argv, names):
    out = os.path.join(tmp, "b.json")
    r = subprocess.run([ts] + argv + ["-o", out], capture_output=True, text=True)
    if r.returncode == 2:
        runs[0] += 1
        if r.stderr.count("\n") != 1 or not any(n in r.stderr for n in names):
            bad.append("%s: refused without naming %s: %s" % (what, " or ".join(names), r.stderr.strip()))
        return
    if r.returncode != 0:
        bad.append("%s: exit %d: %s" % (what, r.returncode, r.stderr.strip())); return
    runs[1] += 1
    # the event budget is a resource limit a user raises for long traces, not a trace range
    s = subprocess.run([ts, "--limit", "sim_events=18446744073709551615", "simulate", "-t", os.path.join(tmp, "fab.json"), "-w", out, "--until", "1e-6",
                        "--quiet", "--no-timing", "-o", os.path.join(tmp, "b.res")], capture_output=True, text=True)
    if s.returncode != 0:
        bad.append("%s: converter exit 0, simulate exit %d: %s" % (what, s.returncode, s.stderr.strip()))
P = ["trace", "poisson", "--jobs", "3", "--mean-interarrival-s", "1", "--sizes", "1:1,2:1"]
FIX = ["--duration-dist", "fixed:1"]
dd = os.path.join(tmp, "bdcn", "ring_size_2")
os.makedirs(dd, exist_ok=True)
open(os.path.join(dd, "job_0-A.txt"), "w").write("#src dst src_tor dst_tor start_time flow_size compute_time stage_index\n"
                                                 "96 128 0 1 0 1000 0 0\n128 97 1 0 0 1 0 0\n")
open(os.path.join(dd, "job_1-B.txt"), "w").write("#src dst src_tor dst_tor start_time flow_size compute_time stage_index\n"
                                                 "100 101 0 0 0 18446744073709551615 0 0\n")
D = ["trace", "convert-dcn", dd]
def csv(rows):
    p = os.path.join(tmp, "b.csv")
    open(p, "w").write(H + "\n" + "\n".join(rows) + "\n")
    return p
base = csv(["p1,1,,Succeeded,0,10,1"])
for v in near(5e-7, 9.2e12) + [1e-7, 1e13]:
    case("poisson --compute-ms %s" % fmt(v), P + FIX + ["--compute-ms", fmt(v)], ["--compute-ms"])
    case("dcn --compute-ms %s" % fmt(v), D + ["--compute-ms", fmt(v)], ["--compute-ms"])
    case("alibaba --compute-ms %s" % fmt(v), ["trace", "convert-alibaba", base, "--compute-ms", fmt(v)], ["--compute-ms"])
for v in near(5e-10, 9.2e9):
    case("poisson fixed:%s" % fmt(v), P + ["--duration-dist", "fixed:" + fmt(v)], ["--duration-dist"])
    case("poisson exp:%s" % fmt(v), P + ["--duration-dist", "exp:" + fmt(v)], ["--duration-dist"])
for mu in [22.94, 22.95, -21.41, -21.42, rnd.uniform(-30, 30), rnd.uniform(-30, 30)]:
    for sg in [0, 0.01, rnd.uniform(0, 3)]:
        case("poisson lognormal:%r,%r" % (mu, sg), P + ["--duration-dist", "lognormal:%r,%r" % (mu, sg)], ["--duration-dist"])
for v in near(1e-300, 9.2e9) + [4.6e9, 3.07e9]:
    case("poisson --mean-interarrival-s %s" % fmt(v), ["trace", "poisson", "--jobs", "3", "--mean-interarrival-s", fmt(v),
         "--sizes", "1:1"] + FIX, ["--mean-interarrival-s"])
for v in [5e-324, 1e-300, 1e308, 1.7976931348623157e308, "inf", "-1"]:
    case("poisson --gbits %s" % v, P + FIX + ["--gbits", fmt(v)], ["--gbits"])
for v in [0, 1, 2**32, 2**53 - 1, 2**53, 2**53 + 1, 2**64 - 1, rnd.randrange(1, 2**53)]:
    case("dcn --iterations %d" % v, D + ["--iterations", str(v)], ["--iterations"])
for v in near(1e-300, 9.2e9) + [0.0, -0.0, -1e-300]:
    case("dcn --arrival-window-s %s" % fmt(v), D + ["--arrival-window-s", fmt(v)], ["--arrival-window-s"])
# times of the CSV near what a trace holds
for c in near(1e-300, 9.2e9) + [0.0]:
    case("alibaba arrival %s" % fmt(c), ["trace", "convert-alibaba", csv(["a,1,,Succeeded,0,5,1", "b,1,,Succeeded,%s,%s,%s" % (
        fmt(c), fmt(c + 5), fmt(c + 1))])], ["creation_time", "scheduled_time"])
for d in near(5e-10, 9.2e9):
    case("alibaba duration %s" % fmt(d), ["trace", "convert-alibaba", csv(["a,1,,Succeeded,0,%s,1" % fmt(1 + d)])],
         ["scheduled_time"])
    case("alibaba censored duration %s" % fmt(d), ["trace", "convert-alibaba", csv(["a,1,,Running,0,,1",
         "b,0,,Running,0,%s,1" % fmt(1 + d)])], ["scheduled_time"])
# a model mix's fields are copied: they must be what the trace reader takes
def mix(model):
    p = os.path.join(tmp, "bmix.json")
    m = {"compute_ms": 1, "phases": [{"pattern": "dp-ring", "gbits": 1}]}
    m.update(model)
    json.dump({"format": "tsched.model-mix.v1", "models": [m]}, open(p, "w"))
    return p
mixes = [({"compute_ms": v}, "compute_ms") for v in near(5e-7, 9.2e12)]
mixes += [({"phases": [{"pattern": "pp", "gbits": 1, "repeat": r}]}, "repeat") for r in [1, 2**32 - 1, 2**32, 2**40]]
M = {"hidden": 8, "layers": 2, "vocab": 10, "seq": 4, "global_batch": 8, "micro_batch": 2}
for k, v in [("micro_batch", 3), ("hidden", 0), ("vpp", 0), ("moe_experts", -1), ("seq", 2**32), ("layers", 2.0)]:
    m = dict(M); m[k] = v
    mixes.append(({"model": m, "phases": [{"pattern": "dp-ring"}]}, "model."))
mixes.append(({"model": {"hidden": 8}, "phases": [{"pattern": "dp-ring"}]}, "model."))
for fl in [{"src": 0, "dst": 0, "gbits": 1}, {"src": 0, "dst": 1, "gbits": 0}, {"src": 0, "dst": 1},
           {"src": -1, "dst": 1, "gbits": 1}, {"src": 0, "dst": 1, "gbits": 1, "hops": []},
           {"src": 0, "dst": 1, "gbits": 1, "src_nic": 2**32}, {"src": 1, "dst": 0, "gbits": 1e-9}]:
    mixes.append(({"phases": [{"flows": [fl]}]}, "flows[0]"))
for model, name in mixes:
    # 2-GPU jobs: explicit flows between ranks 0 and 1 need two nodes (checked when the run starts)
    case("mix %s" % json.dumps(model), ["trace", "poisson", "--jobs", "3", "--mean-interarrival-s", "1", "--sizes", "2:1"]
         + FIX + ["--model-mix", mix(model), "--gpus-per-node", "1"], [name])
print("\n".join(bad[:30]))
if len(bad) > 30: print("... %d more" % (len(bad) - 30))
print("bounds: %d refused, %d loaded" % tuple(runs), file=sys.stderr)
sys.exit(1 if bad or runs[0] < 40 or runs[1] < 40 else 0)
EOF2
py "converters near every bound: refused naming the option, or simulate loads it" "$tmp/bounds.py" "$ts" "$tmp" "$data"

# names: C1 controls and U+2028 (which names refuse) become '_', so simulate loads the trace
printf '%s\np\302\205x,1,,Succeeded,0,10,1\nq\342\200\250y,1,,Succeeded,0,10,1\n' "$H" > "$tmp/c1.csv"
expect 0 "alibaba: C1 and U+2028 in names" -- "$ts" trace convert-alibaba "$tmp/c1.csv" -o "$tmp/c1.json"
has "$tmp/c1.json" '"name": "pod-p_x"' "C1 control in a name"
has "$tmp/c1.json" '"name": "pod-q_y"' "U+2028 in a name"
expect 0 "simulate loads the C1 names" -- "$ts" simulate -t "$tmp/fab.json" -w "$tmp/c1.json" --until 1e-6 --quiet \
    --no-timing

# ---------------------------------------------------------------- the real data, when present
real=0
ali=${shared:+$shared/alibaba-cluster-trace-gpu-v2023/openb_pod_list_default.csv}
if [ -n "$ali" ] && [ -f "$ali" ]; then
    real=1
    expect 0 "convert-alibaba on the real pods" -- "$ts" trace convert-alibaba "$ali" -o "$tmp/real.json"
    py "real Alibaba trace: valid" "$tmp/valid.py" "$tmp/real.json"
    # an independent reading of the rules of design/sim.md 4.3 (csv module), job by job
    cat > "$tmp/real.py" <<'EOF'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[2], newline="")))
end = max(float(r[k]) for r in rows for k in ("creation_time", "deletion_time", "scheduled_time") if r[k] != "")
want = []
for r in rows:
    if int(r["num_gpu"]) < 1 or r["pod_phase"] == "Pending" or r["scheduled_time"] == "":
        continue
    cens = r["deletion_time"] == "" or (r["pod_phase"] == "Running" and float(r["deletion_time"]) >= end)
    dur = (end if cens else float(r["deletion_time"])) - float(r["scheduled_time"])
    if dur > 0:
        want.append(("pod-" + r["name"], float(r["creation_time"]), int(r["num_gpu"]), dur, cens))
t0 = min(w[1] for w in want)
want = [(n, c - t0, g, d, x) for n, c, g, d, x in want]
got = [(j["name"], j["arrival_s"], j["gpus"], j["duration_s"], j.get("censored", False)) for j in json.load(open(sys.argv[1]))["jobs"]]
bad = []
if got != want:
    bad.append("%d jobs, expected %d; first difference: %r" % (len(got), len(want),
               next(((a, b) for a, b in zip(got, want) if a != b), None)))
# the facts doc/sim-traces.md quotes
gpu = sum(1 for r in rows if int(r["num_gpu"]) >= 1)
facts = (len(rows), gpu, len(got), sum(1 for g in got if g[4]))
if facts != (8152, 7064, 6203, 32): bad.append("rows, GPU pods, kept, censored = %r, expected (8152, 7064, 6203, 32)" % (facts,))
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
    py "real Alibaba trace: the rules, pod by pod" "$tmp/real.py" "$tmp/real.json" "$ali"
    expect 0 "convert-alibaba real, scaled, with a mix" -- "$ts" trace convert-alibaba "$ali" --scale-gpus 8 \
        --model-mix "$data/mix.json" --seed 2 --compact -o "$tmp/real8.json"
    py "real Alibaba trace, scaled with a mix: valid" "$tmp/valid.py" "$tmp/real8.json"
else
    echo "SKIP: the Alibaba v2023 pod list is not at ${ali:-<no shared data folder given>}"
fi
dcnreal=${shared:+$shared/dcn-simulators/traffic_pairs}
if [ -n "$dcnreal" ] && [ -d "$dcnreal/concurrent_jobs_5/ring_size_4" ]; then
    real=1
    for inst in concurrent_jobs_1/ring_size_8 concurrent_jobs_5/ring_size_2 concurrent_jobs_5/ring_size_4; do
        expect 0 "convert-dcn $inst" -- "$ts" trace convert-dcn "$dcnreal/$inst" -o "$tmp/rd.json"
        py "convert-dcn $inst: valid" "$tmp/valid.py" "$tmp/rd.json"
        cat > "$tmp/rd.py" <<'EOF'
import glob, json, os, re, sys
d = json.load(open(sys.argv[1]))
files = sorted(glob.glob(os.path.join(sys.argv[2], "job_*.txt")),
               key=lambda p: int(re.match(r"job_(\d+)-", os.path.basename(p)).group(1)))
bad = []
if [j["name"] for j in d["jobs"]] != [os.path.basename(f)[:-4] for f in files]: bad.append("job names / order")
for j, f in zip(d["jobs"], files):
    L = [l.split() for l in open(f) if l.strip() and not l.startswith("#")]
    nodes = []
    for l in L:
        for v in l[:2]:
            n = "node%d" % (int(v) - 96)
            if n not in nodes: nodes.append(n)
    fl = [(nodes.index("node%d" % (int(l[0]) - 96)), nodes.index("node%d" % (int(l[1]) - 96)), int(l[5]) / 1e9) for l in L]
    if j["nodes"] != nodes: bad.append(j["name"] + ": nodes")
    if [(x["src"], x["dst"], x["gbits"]) for x in j["phases"][0]["flows"]] != fl: bad.append(j["name"] + ": flows")
used = [n for j in d["jobs"] for n in j["nodes"]]
if len(used) != len(set(used)): bad.append("jobs of one instance share nodes")
print("\n".join(bad))
sys.exit(1 if bad else 0)
EOF
        py "convert-dcn $inst: the files, line by line" "$tmp/rd.py" "$tmp/rd.json" "$dcnreal/$inst"
    done
else
    echo "SKIP: the dcn-simulators traffic pairs are not at ${dcnreal:-<no shared data folder given>}"
fi
[ "$real" -eq 0 ] && echo "SKIP: no real data; the fixtures ran"

echo "test_trace_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

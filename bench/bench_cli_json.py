#!/usr/bin/env python3
"""The command line on large documents (issue 10, targets 4 and 5), against Python's json
module on the same documents, in one run.

route: `topo-sched route` of N random flows (leaf_spine 64 x 32, 32 one-NIC nodes a leaf,
the fabric of bench_routing) against a Python process that does json.load of the same
flows document plus json.dumps of the routes document topo-sched wrote (to a file), with
separators=(",", ":") (json's C encoder; --py-indent: indent=2 for the indented run, which
takes json's pure-Python encoder and is about 4x slower). The two alternate,
R times each; the ratio is taken per repetition (topo-sched / the Python run next to it).
Peak memory: GNU time's %M of each topo-sched run.

kcut (with --kcut-dag FILE, e.g. written by `bench_kcut --n 50000 --write-dag FILE`):
`topo-sched kcut -d FILE --levels 8`, wall time and peak memory.

--compare BIN runs another topo-sched on the same input and checks that the outputs are
byte-identical (with --no-timing), e.g. a build of the previous revision.

usage: bench_cli_json.py --topo-sched BIN [--flows N] [--reps R] [--dir DIR]
                         [--compare BIN] [--kcut-dag FILE ...] [--json]
"""
import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time

PY_CHILD = r'''
import json, sys, time
flows, routes, out, compact = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
with open(routes) as f:            # not timed: the document to dump
    doc = json.load(f)
t0 = time.perf_counter()
with open(flows) as f:
    inp = json.load(f)
t1 = time.perf_counter()
# json's fastest dump (its C encoder; indent=2 takes the pure-Python one, 4x slower)
text = json.dumps(doc, separators=(",", ":")) if compact else json.dumps(doc, indent=2)
with open(out, "w") as f:
    f.write(text)
    f.write("\n")
t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
'''


TIME = "/usr/bin/time"


def run(cmd):
    """Wall time (s) and peak RSS (MiB) of one child. The peak comes from GNU time's %M
    (a forked Python child's own ru_maxrss would count this script's pages before exec)."""
    with tempfile.NamedTemporaryFile("r") as tf:
        timed = [TIME, "-f", "%M", "-o", tf.name] + cmd if os.access(TIME, os.X_OK) else cmd
        t0 = time.perf_counter()
        p = subprocess.run(timed, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            sys.exit("bench_cli_json: %s failed (%d): %s" % (cmd[0], p.returncode, p.stderr.strip()))
        kib = tf.read().strip().splitlines()
    return wall, (float(kib[-1]) / 1024.0 if kib else float("nan"))


def make_inputs(d, n, seed):
    topo = os.path.join(d, "fabric.json")
    with open(topo, "w") as f:
        json.dump({"format": "tsched.topology.v1", "name": "bench-leaf-spine-64x32",
                   "generate": {"kind": "leaf_spine", "leaves": 64, "spines": 32, "nodes_per_leaf": 32,
                                "gpus_per_node": 1, "nic_gbps": 100, "uplinks": 1}}, f)
    flows = os.path.join(d, "flows-%d.json" % n)
    rng = random.Random(seed)
    nodes = 64 * 32
    out = []
    for _ in range(n):
        s = rng.randrange(nodes)
        t = rng.randrange(nodes - 1)
        t += t >= s
        out.append({"src": "node%d" % s, "dst": "node%d" % t, "gbits": rng.choice((1.0, 2.5, 10.0, 0.1, 40.0))})
    with open(flows, "w") as f:
        json.dump({"format": "tsched.flows.v1", "flows": out}, f, separators=(",", ":"))
    return topo, flows


def rng_range(xs):
    return "%.2f-%.2f" % (min(xs), max(xs)) if len(xs) > 1 else "%.2f" % xs[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topo-sched", required=True)
    ap.add_argument("--flows", type=int, default=1000000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dir", default=None, help="work directory (default: a temporary one)")
    ap.add_argument("--compare", default=None, help="another topo-sched whose output must be identical")
    ap.add_argument("--kcut-dag", action="append", default=[])
    ap.add_argument("--json", action="store_true", help="one JSON line per result")
    ap.add_argument("--py-indent", dest="py_dump_compact", action="store_false",
                    help="time Python's indent=2 dump against the indented run (default: its compact C dump "
                         "for both runs, the faster and stricter reference)")
    a = ap.parse_args()
    d = a.dir or tempfile.mkdtemp(prefix="bench_cli_json.")
    os.makedirs(d, exist_ok=True)
    topo, flows = make_inputs(d, a.flows, a.seed)
    print("inputs: %s (%.1f MB), %d flows, %d repetitions" % (flows, os.path.getsize(flows) / 1e6, a.flows, a.reps))
    ok = True
    results = []
    for compact in (0, 1):
        mode = "compact" if compact else "indented"
        out = os.path.join(d, "routes-%s.json" % mode)
        cmd = [a.topo_sched, "route", "-t", topo, "-f", flows, "-o", out] + (["--compact"] if compact else [])
        if a.compare:
            mine = os.path.join(d, "mine-%s.json" % mode)
            theirs = os.path.join(d, "theirs-%s.json" % mode)
            run([a.topo_sched, "route", "-t", topo, "-f", flows, "--no-timing", "-o", mine] +
                (["--compact"] if compact else []))
            run([a.compare, "route", "-t", topo, "-f", flows, "--no-timing", "-o", theirs] +
                (["--compact"] if compact else []))
            same = open(mine, "rb").read() == open(theirs, "rb").read()
            ok &= same
            print("%s: output %s to %s's" % (mode, "identical" if same else "DIFFERENT", a.compare))
            os.unlink(mine)
            os.unlink(theirs)
        walls, peaks, pys, ratios = [], [], [], []
        for r in range(a.reps):
            w, m = run(cmd)
            t0 = time.perf_counter()
            p = subprocess.run([sys.executable, "-c", PY_CHILD, flows, out, out + ".py", "1" if a.py_dump_compact or compact else "0"],
                               check=True, capture_output=True, text=True)
            load, dump = map(float, p.stdout.split())
            py = load + dump
            walls.append(w)
            peaks.append(m)
            pys.append(py)
            ratios.append(w / py)
            print("  %s rep %d: topo-sched %.2f s, %.0f MiB; python load %.2f + dump %.2f = %.2f s; ratio %.2f" %
                  (mode, r + 1, w, m, load, dump, py, w / py))
            os.unlink(out + ".py")
        res = {"bench": "route", "mode": mode, "flows": a.flows, "topo_sched_s": walls, "peak_mib": peaks,
               "python_s": pys, "ratio": ratios, "out_mb": os.path.getsize(out) / 1e6}
        results.append(res)
        print("route %s (%.0f MB out): topo-sched %s s, python %s s, ratio %s (target <= 1.3), peak %s MiB "
              "(target < 600)" % (mode, res["out_mb"], rng_range(walls), rng_range(pys), rng_range(ratios),
                                  "%.0f-%.0f" % (min(peaks), max(peaks))))
    for dag in a.kcut_dag:
        walls, peaks = [], []
        for r in range(a.reps):
            w, m = run([a.topo_sched, "kcut", "-d", dag, "--levels", "8", "-o", os.path.join(d, "levels.json")])
            walls.append(w)
            peaks.append(m)
        res = {"bench": "kcut", "dag": dag, "wall_s": walls, "peak_mib": peaks}
        results.append(res)
        print("kcut %s: %s s, peak %.0f-%.0f MiB" % (os.path.basename(dag), rng_range(walls), min(peaks), max(peaks)))
        if a.compare:
            mine, theirs = os.path.join(d, "l1.json"), os.path.join(d, "l2.json")
            run([a.topo_sched, "kcut", "-d", dag, "--levels", "8", "-o", mine])
            run([a.compare, "kcut", "-d", dag, "--levels", "8", "-o", theirs])
            same = open(mine, "rb").read() == open(theirs, "rb").read()
            ok &= same
            print("kcut output %s to %s's" % ("identical" if same else "DIFFERENT", a.compare))
    if a.json:
        for res in results:
            print(json.dumps(res))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

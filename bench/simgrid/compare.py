#!/usr/bin/env python3
"""The project's simulator against SimGrid on the same inputs (doc/sim.md §10, issue 26).

Writes a topology, a trace and a scenario, runs `topo-sched simulate` and bench_simgrid on
them (one after the other, same machine), and prints the largest relative difference of the
job completion times and the speed ratio (SimGrid's time / ours) of that one run.

The inputs are made so that both simulators can compute the same thing (bench_simgrid.cpp):
every job has fixed nodes (node sets identical or disjoint: "slots" of 2-16 nodes scattered
over the fabric, jobs of a slot queue behind each other under queue `ff`), whole-number
iterations, and explicit flows with pinned paths (`hops`): a ring over the job's nodes on
each of R rails, spine drawn at random (seeded) for each flow, plus on some jobs a second
phase of pairwise sends repeated twice. Fabric links are 2:1 oversubscribed so that flows
of different jobs share spine links as well as NICs.

Scenarios: a = 512 GPUs (16 leaves x 4 nodes x 8 GPUs, 8 spines), b = 2,048 GPUs (32 leaves
x 8 nodes x 8 GPUs, 16 spines), both two-tier leaf-spine fabrics of 100 G NICs.

usage: compare.py [--build DIR] [--scenario a|b|all] [--jobs-a N] [--jobs-b N] [--rails R]
                  [--seed S] [--keep DIR]
Exit status 1 when a job time differs by more than 1e-6 relative or a job did not finish.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

# Computation long enough, and overlapped enough, that most iterations end with their
# computation: see "Why the mix" in doc/PERFORMANCE.md (fully exposed communication makes the
# runs chaotic, and nanosecond-level differences grow until no two simulators agree).
COMPUTE_MS = [400, 800]
OVERLAP = [0.5, 1]

SCENARIOS = {
    # name: (leaves, spines, nodes_per_leaf, default jobs, mean inter-arrival s)
    "a": (16, 8, 4, 300, 0.4),
    "b": (32, 16, 8, 3000, 0.1),
}


def make_inputs(kind, njobs, rails, seed, d):
    leaves, spines, npl, _, mean_ia = SCENARIOS[kind]
    rng = random.Random(seed)
    nodes = leaves * npl
    topo = {"format": "tsched.topology.v1", "name": "cmp-" + kind,
            "generate": {"kind": "leaf_spine", "leaves": leaves, "spines": spines, "nodes_per_leaf": npl,
                         "gpus_per_node": 8, "nic_gbps": 100, "oversubscription": 2}}
    # slots: a random permutation of the nodes cut into groups of 2-16
    perm = list(range(nodes))
    rng.shuffle(perm)
    slots, k = [], 0
    while k < nodes:
        size = rng.choice([2, 4, 4, 8, 16])
        if nodes - k - size < 2:
            size = nodes - k
        slots.append(perm[k:k + size])
        k += size

    def hops(a, b):
        la, lb = a // npl, b // npl
        if la == lb:
            return ["leaf%d" % la]
        return ["leaf%d" % la, "spine%d" % rng.randrange(spines), "leaf%d" % lb]

    jobs, at_ns, nflows = [], 0, 0
    for i in range(njobs):
        at_ns += int(rng.expovariate(1.0 / mean_ia) * 1e9)
        slot = rng.choice(slots)
        n = len(slot)
        g = rng.choice([1.0, 2.0, 4.0, 5.0, 8.0])
        ring = [{"src": r, "dst": (r + 1) % n, "src_nic": q, "dst_nic": q, "gbits": g,
                 "hops": hops(slot[r], slot[(r + 1) % n])} for r in range(n) for q in range(rails)]
        phases = [{"flows": ring}]
        if rng.random() < 0.3 and n >= 4:
            pairs = [{"src": r, "dst": r + n // 2, "src_nic": 0, "dst_nic": 0, "gbits": g / 4,
                      "hops": hops(slot[r], slot[r + n // 2])} for r in range(n // 2)]
            phases.append({"flows": pairs, "repeat": 2})
        nflows += sum(len(p["flows"]) for p in phases)
        jobs.append({"name": "j%d" % i, "arrival_s": at_ns / 1e9, "nodes": ["node%d" % x for x in slot],
                     "compute_ms": rng.choice(COMPUTE_MS), "overlap": rng.choice(OVERLAP),
                     "iterations": rng.randint(5, 40), "phases": phases})
    trace = {"format": "tsched.trace.v1", "name": "cmp-" + kind, "jobs": jobs}
    scen = {"format": "tsched.scenario.v1", "name": "simgrid-cmp-" + kind, "queue": "ff", "routing": "ecmp",
            "links": "trunk", "priority": "none", "reroute": "none", "timeseries": 0}
    paths = {}
    for name, doc in (("topo", topo), ("trace", trace), ("scenario", scen)):
        paths[name] = os.path.join(d, "%s-%s.json" % (name, kind))
        with open(paths[name], "w") as f:
            json.dump(doc, f)
    return paths, nodes * 8, len(slots), nflows


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = (time.perf_counter() - t0) * 1e3
    if p.returncode != 0:
        sys.exit("%s failed (%d): %s" % (cmd[0], p.returncode, p.stderr.strip()[-2000:]))
    return p.stdout, wall


def compare(kind, njobs, args, d):
    paths, gpus, nslots, nflows = make_inputs(kind, njobs, args.rails, args.seed, d)
    out = os.path.join(d, "result-%s.json" % kind)
    _, ours_proc = run([os.path.join(args.build, "src", "cli", "topo-sched"), "simulate", "-t", paths["topo"],
                        "-w", paths["trace"], "-s", paths["scenario"], "--quiet", "--compact", "-o", out])
    with open(out) as f:
        res = json.load(f)
    sg_out, sg_proc = run([os.path.join(args.build, "bench", "simgrid", "bench_simgrid"), paths["topo"],
                           paths["trace"], paths["scenario"], "--log=root.thres:critical"])
    sg, version, sg_run = {}, "?", None
    for line in sg_out.splitlines():
        w = line.split()
        if w[0] == "simgrid":
            version = w[1]
        elif w[0] == "job":
            sg[w[1]] = float(w[5])
        elif w[0] == "run_ms":
            sg_run = float(w[1])
    worst, worst_job, unfinished = 0.0, None, 0
    for j in res["jobs"]:
        a, b = j["jct_s"], sg.get(j["name"], -1)
        if a is None or b < 0:
            unfinished += 1
            continue
        rel = abs(a - b) / max(abs(a), abs(b))
        if rel > worst:
            worst, worst_job = rel, j["name"]
    sm = res["summary"]
    ours_run = res["wall_ms"]
    print("scenario %s: %d GPUs, %d jobs (%d done) on %d node sets, %d flows per iteration set, %d events, "
          "%d rate updates" % (kind, gpus, njobs, sm["jobs_done"], nslots, nflows, sm["events"], sm["rate_updates"]))
    print("  SimGrid %s: run %.1f ms (process %.1f ms); topo-sched: run %.1f ms (process %.1f ms)"
          % (version, sg_run, sg_proc, ours_run, ours_proc))
    print("  speed ratio (SimGrid / ours): run %.1fx, process %.1fx" % (sg_run / ours_run, sg_proc / ours_proc))
    print("  largest relative difference of job completion times: %.3g (job %s), unfinished %d"
          % (worst, worst_job, unfinished))
    print("  makespan %.3f s, avg JCT %.3f s" % (sm["makespan_s"], sm["avg_jct_s"]))
    return worst <= 1e-6 and unfinished == 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--scenario", default="all", choices=["a", "b", "all"])
    ap.add_argument("--jobs-a", type=int, default=SCENARIOS["a"][3])
    ap.add_argument("--jobs-b", type=int, default=SCENARIOS["b"][3])
    ap.add_argument("--rails", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", help="write the inputs and results here instead of a temporary directory")
    args = ap.parse_args()
    ok = True
    with tempfile.TemporaryDirectory() as tmp:
        d = args.keep or tmp
        os.makedirs(d, exist_ok=True)
        for kind in ("a", "b"):
            if args.scenario in (kind, "all"):
                ok = compare(kind, args.jobs_a if kind == "a" else args.jobs_b, args, d) and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

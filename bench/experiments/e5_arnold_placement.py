#!/usr/bin/env python3
"""E5: Arnold placement end to end (seed 000 §7.1, §7.2; design/sim.md §11 E5).

A clos3 (default 4 pods x 8 leaves x 8 spines, 16 cores, 8 nodes per leaf, 8 GPUs and 8 NICs
of 400 Gbit/s per node, non-blocking: 2,048 GPUs). Background jobs (2..8 nodes each, pinned
with fixed `nodes` so that every run sees the same background; nodes drawn leaf by leaf at
random, seeded, spilling over to another random leaf) take about 45 % of the nodes from t = 0,
each iterating compute (0.3-0.8 s) then a dp-ring of 50-200 Gbit per flow. At t = 1 s one big job arrives (1,024 GPUs, tp 8, pp 8: 128 nodes;
phases dp-ring then pp), placed by the scenario's placement policy (the only way to pin a
policy to one job: the background jobs have fixed nodes, so the policy only places the big
job). Its iter_mean_s per placement and routing is the result; the gain of mip over each
baseline is set beside Arnold's 10.6 % (its 9,600-GPU production job).
"""

import os
import random

from common import NA, Rejected, Timer, fmt, md_table, parse_args, plot_bars, simulate, write_json, write_md

PAPER_GAIN = 10.6
PLACEMENTS = ["mip", "best-fit", "random-fit", "gpu-pack", "topo-aware", "first-fit"]
ROUTINGS = ["ecmp", "greedy"]
SEED = 7


def build(quick):
    if quick:
        g = {"kind": "clos3", "pods": 2, "leaves_per_pod": 4, "spines_per_pod": 4, "cores": 4,
             "nodes_per_leaf": 4, "gpus_per_node": 8, "nics_per_node": 8, "nic_gbps": 400}
        big = {"gpus": 128, "tp": 8, "pp": 4}
    else:
        g = {"kind": "clos3", "pods": 4, "leaves_per_pod": 8, "spines_per_pod": 8, "cores": 16,
             "nodes_per_leaf": 8, "gpus_per_node": 8, "nics_per_node": 8, "nic_gbps": 400}
        big = {"gpus": 1024, "tp": 8, "pp": 8}
    return {"format": "tsched.topology.v1", "name": "e5-clos3", "generate": g}, big


def background(gen, frac, rng):
    leaves = gen["pods"] * gen["leaves_per_pod"]
    npl = gen["nodes_per_leaf"]
    free = {l: list(range(l * npl, (l + 1) * npl)) for l in range(leaves)}
    target = int(round(frac * leaves * npl))
    jobs, used = [], 0
    while used < target:
        n = min(rng.choice([2, 2, 4, 4, 8]), target - used)
        if n < 2:
            break
        nodes = []
        while len(nodes) < n:
            l = rng.choice([x for x in free if free[x]])
            k = min(n - len(nodes), len(free[l]))
            start = rng.randrange(0, len(free[l]) - k + 1)
            nodes += free[l][start:start + k]
            del free[l][start:start + k]
        used += n
        jobs.append({"name": "bg%d" % len(jobs), "arrival_s": 0, "nodes": ["node%d" % i for i in nodes],
                     "compute_ms": rng.choice([300, 500, 800]), "overlap": 0.0, "iterations": 2000,
                     "phases": [{"pattern": "dp-ring", "gbits": rng.choice([50.0, 100.0, 200.0])}]})
    return jobs, used


def main():
    a = parse_args(__doc__)
    timer = Timer()
    fabric, big = build(a.quick)
    gen = fabric["generate"]
    nnodes = gen["pods"] * gen["leaves_per_pod"] * gen["nodes_per_leaf"]
    fab = write_json(os.path.join(a.work, "e5-fabric.json"), fabric)
    rng = random.Random(SEED)
    bg, used = background(gen, 0.45, rng)
    iters = 10 if a.quick else 20
    job = dict(name="big", arrival_s=1, compute_ms=1000, overlap=0.0, iterations=iters,
               phases=[{"pattern": "dp-ring", "gbits": 100.0}, {"pattern": "pp", "gbits": 2.0, "repeat": 8}], **big)
    tr = write_json(os.path.join(a.work, "e5-trace.json"),
                    {"format": "tsched.trace.v1", "name": "e5", "jobs": bg + [job]})
    res, notes = {}, []
    for routing in ROUTINGS:
        for pl in PLACEMENTS:
            sc = write_json(os.path.join(a.work, "e5-scenario.json"),
                            {"format": "tsched.scenario.v1", "name": "e5-%s-%s" % (pl, routing), "placement": pl,
                             "routing": routing, "seed": SEED, "until_s": 1 + 10 * iters,
                             "place_time_limit_ms": 2000})
            try:
                r = simulate(a.topo_sched, fab, tr, sc)
            except Rejected as e:
                notes.append("%s: %s (%s)" % (pl, NA, e))
                continue
            jb = r["jobs"][-1]
            res[(routing, pl)] = jb
            print("  %-7s %-11s big job iter_mean %s s alone %s s (done %s/%s) [%s]" %
                  (routing, pl, fmt(jb["iter_mean_s"], 3), fmt(jb["iter_alone_s"], 3), jb["iterations_done"],
                   jb["iterations"], timer), flush=True)
    rows = []
    for routing in ROUTINGS:
        m = res.get((routing, "mip"))
        for pl in PLACEMENTS:
            jb = res.get((routing, pl))
            if jb is None:
                rows.append([routing, pl, NA, "", "", "", ""])
                continue
            gain = "" if pl == "mip" or not m or not m["iter_mean_s"] or not jb["iter_mean_s"] else \
                "%+.1f %%" % (100 * (jb["iter_mean_s"] / m["iter_mean_s"] - 1))
            rows.append([routing, pl, fmt(jb["iter_mean_s"], 3), fmt(jb["iter_alone_s"], 3),
                         "%d/%d" % (jb["iterations_done"], jb["iterations"]), gain,
                         "%.1f %%" % PAPER_GAIN if pl != "mip" else ""])
    table = md_table(["routing", "placement", "big job iter_mean_s", "iter_alone_s", "iterations done",
                      "mip faster by (project)", "paper (Arnold, production job)"], rows)
    svg = os.path.join(a.out, "e5_arnold_placement.svg")
    plot_bars(svg, "E5: big job iteration time per placement", "placement", "iter_mean_s (s)", PLACEMENTS,
              [(r, [res[(r, p)]["iter_mean_s"] if (r, p) in res else None for p in PLACEMENTS]) for r in ROUTINGS])
    intro = ("Paper: Arnold (seed 000) §7.1-7.2: a 9,600-GPU job trains 10.6 %% faster under Arnold's placement. "
             "Project: clos3 `%s`, %d nodes; %d background jobs pinned on %d nodes (%.0f %%, seed %d); the big job "
             "(%d GPUs, tp %d, pp %d, compute 1 s, overlap 0, dp-ring 100 Gbit then 8 x pp 2 Gbit per flow and iteration, "
             "%d iterations) arrives at 1 s and is placed by the policy; `place_time_limit_ms` 2000. "
             "\"mip faster by\" = iter_mean_s(policy) / iter_mean_s(mip) - 1."
             % (", ".join("%s %s" % kv for kv in gen.items()), nnodes, len(bg), used, 100.0 * used / nnodes, SEED,
                big["gpus"], big["tp"], big["pp"], iters))
    write_md(os.path.join(a.out, "e5_arnold_placement.md"), "E5: Arnold placement end to end", intro, table,
             ("\n".join("- " + n for n in notes) + "\n\n" if notes else "") + "Plot: e5_arnold_placement.svg")
    print("E5 run time", timer)
    write_json(os.path.join(a.out, "e5_arnold_placement.json"),
               {"experiment": "E5", "results": {"%s/%s" % k: {x: v[x] for x in ("iter_mean_s", "iter_alone_s", "nodes")}
                                                for k, v in res.items()}})


if __name__ == "__main__":
    main()

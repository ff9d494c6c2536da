#!/usr/bin/env python3
"""E1: CRUX Examples 1 and 2 (seed 001 §4.2, Figures 11 and 12; design/sim.md §9, §11).

Two leaves, one spine, 100 Gbit/s trunks, 4 nodes of 5 GPUs with one 400 Gbit/s NIC; job 1
on n0 -> n2, job 2 on n1 -> n3 (10 GPUs each), one explicit flow per iteration crossing the
spine; priority `fixed` with levels set per order (level 0 = first).
Example 1: job 1 computes 2 s and sends 200 Gbit (2 s), job 2 computes 1 s and sends 100 Gbit
(1 s), no overlap; GPU utilisation over the window 120..144 s (6 periods of 4 s).
Example 2: job 1 computes 4 s, sends 1 s; job 2 computes 2 s, sends 3 s; overlap 0.5; run
until 13 s; job 2's idle time = 13 - its compute_s.
"""

import os

from common import NA, Rejected, Timer, fmt, md_table, parse_args, plot_timeline, simulate, write_json, write_md

PAPER_EX1 = {1: 37.5, 2: 41.7}
PAPER_EX2 = {1: 7.0, 2: 6.0}

FABRIC = {
    "format": "tsched.topology.v1", "name": "crux-examples",
    "switches": [{"name": "leaf0", "tier": 0}, {"name": "leaf1", "tier": 0}, {"name": "spine0", "tier": 1}],
    "links": [{"a": "leaf0", "b": "spine0", "gbps": 100}, {"a": "leaf1", "b": "spine0", "gbps": 100}],
    "nodes": [{"name": "n%d" % i, "leaf": "leaf%d" % (i // 2), "gpus": 5, "nics": 1, "nic_gbps": 400}
              for i in range(4)],
}


def trace(example, first):
    """first: which job gets level 0 (None: no levels, for priority policies that set them)."""
    if example == 1:
        spec = [("job1", ["n0", "n2"], 2000, 0.0, 200), ("job2", ["n1", "n3"], 1000, 0.0, 100)]
    else:
        spec = [("job1", ["n0", "n2"], 4000, 0.5, 100), ("job2", ["n1", "n3"], 2000, 0.5, 300)]
    jobs = []
    for k, (name, nodes, c, o, g) in enumerate(spec):
        j = {"name": name, "nodes": nodes, "compute_ms": c, "overlap": o, "iterations": 1000,
             "phases": [{"flows": [{"src": 0, "dst": 1, "gbits": g}]}]}
        if first is not None:
            j["level"] = 0 if k + 1 == first else 1
        jobs.append(j)
    return {"format": "tsched.trace.v1", "name": "crux-example-%d" % example, "jobs": jobs}


def scenario(example, until=None, priority="fixed"):
    s = {"format": "tsched.scenario.v1", "name": "crux-ex%d" % example, "priority": priority, "levels": 2}
    if example == 1:
        s["until_s"] = 150 if until is None else until
        if until is None:
            s["measure"] = {"from_s": 120, "to_s": 144}
    else:
        s["until_s"] = 13 if until is None else until
    return s


def busy_intervals(a, fab, example, first, t_end, dt):
    """Per-job busy intervals from compute_s of runs stopped every dt seconds."""
    tr = write_json(os.path.join(a.work, "e1-ex%d-first%d.json" % (example, first)), trace(example, first))
    prev = [0.0, 0.0]
    rows = [[], []]
    t = dt
    while t <= t_end + 1e-9:
        sc = write_json(os.path.join(a.work, "e1-sc-tl.json"), scenario(example, until=t))
        r = simulate(a.topo_sched, fab, tr, sc)
        for j in range(2):
            c = r["jobs"][j]["compute_s"]
            if c - prev[j] > dt / 2:
                iv = rows[j]
                if iv and abs(iv[-1][1] - (t - dt)) < 1e-9:
                    iv[-1] = (iv[-1][0], t)
                else:
                    iv.append((t - dt, t))
            prev[j] = c
        t = round(t + dt, 9)
    return rows


def main():
    a = parse_args(__doc__)
    timer = Timer()
    fab = write_json(os.path.join(a.work, "e1-fabric.json"), FABRIC)
    rows, res = [], {}
    for example in (1, 2):
        for first in (1, 2):
            tr = write_json(os.path.join(a.work, "e1-ex%d-first%d.json" % (example, first)), trace(example, first))
            sc = write_json(os.path.join(a.work, "e1-sc%d.json" % example), scenario(example))
            r = simulate(a.topo_sched, fab, tr, sc)
            if example == 1:
                v, paper, unit = 100 * r["summary"]["gpu_util"], PAPER_EX1[first], "GPU utilisation (%)"
            else:
                v, paper, unit = 13.0 - r["jobs"][1]["compute_s"], PAPER_EX2[first], "job 2 idle in 0..13 s (s)"
            res[(example, first)] = v
            rows.append(["Example %d" % example, "job %d first (fixed)" % first, unit, fmt(paper, 1), fmt(v, 3),
                         "exact" if abs(round(v, 1) - paper) < 1e-9 else "DIFFERS"])
        # the policy that should choose the order by itself (CRUX: job 2 first)
        try:
            tr = write_json(os.path.join(a.work, "e1-ex%d-auto.json" % example), trace(example, None))
            sc = write_json(os.path.join(a.work, "e1-sc%d-crux.json" % example), scenario(example, priority="crux"))
            r = simulate(a.topo_sched, fab, tr, sc)
            v = 100 * r["summary"]["gpu_util"] if example == 1 else 13.0 - r["jobs"][1]["compute_s"]
            rows.append(["Example %d" % example, "priority crux", "", "job 2 first", fmt(v, 3), ""])
        except Rejected:
            rows.append(["Example %d" % example, "priority crux", "", "job 2 first", NA, ""])
    table = md_table(["example", "order", "metric", "paper", "project", "agreement"], rows)
    dt = 0.5 if a.quick else 0.25
    tl = []
    for example, t_end in ((1, 16.0), (2, 13.0)):
        for first in (1, 2):
            iv = busy_intervals(a, fab, example, first, t_end, dt)
            for j in range(2):
                tl.append(("Ex%d %s first: job%d" % (example, "job1" if first == 1 else "job2", j + 1),
                           [(x, y) for x, y in iv[j]]))
    # Example 1's rows span 0..16 s, Example 2's 0..13 s: one common axis of 16 s
    svg = os.path.join(a.out, "e1_crux_examples.svg")
    plot_timeline(svg, "E1: CRUX Examples 1 and 2, GPU busy (compute) per job", "time (s)", tl, 16.0)
    write_md(os.path.join(a.out, "e1_crux_examples.md"), "E1: CRUX Examples 1 and 2",
             "Paper: CRUX (seed 001) §4.2, Figures 11 and 12. Project: `topo-sched simulate`, priority `fixed`, "
             "one 100 Gbit/s trunk per leaf, timeline step %g s." % dt, table,
             "Plot: e1_crux_examples.svg")
    print("E1 run time", timer)
    write_json(os.path.join(a.out, "e1_crux_examples.json"),
               {"experiment": "E1", "results": {"ex%d_first%d" % k: v for k, v in res.items()}})


if __name__ == "__main__":
    main()

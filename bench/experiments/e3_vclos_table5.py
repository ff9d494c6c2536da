#!/usr/bin/env python3
"""E3: vClos Table 5 / Table 6 shape at small scale (seed 002 §9.2-9.6; design/sim.md §11 E3).

CLUSTER512 as a leaf-spine of 16 leaves x 32 spines, 4 nodes x 8 GPUs per leaf, 8 NICs of
100 Gbit/s per node, one 100 Gbit/s link per leaf-spine pair (uplinks 1: non-blocking).
Jobs: `topo-sched trace poisson` (Helios-like sizes 1..256 GPUs, log-normal durations, the
model mix bench/experiments/model-mix.json), the same seed for every lambda (so the job set is
the same and only the arrivals stretch). Work per job is fixed in iterations: the trace's
durations are turned into iterations once, by the `ideal` run's t_alone, so that every routing
does the same work (in duration mode each routing would divide the duration by its own
t_alone, and ECMP's self-inflicted collisions would be normalised away). Policies: routing
`ideal` (vClos "Best"), `balanced-ecmp`, `ecmp`, `greedy`; queue FIFO (Table 5) and FF
(Table 6); placement best-fit (vClos's baselines use its locality placement, `vclos-free`,
tried first); `max_sim_iterations` 200.
"""

import os

from common import (NA, Rejected, Timer, fmt, md_table, parse_args, plot_lines, run, simulate,
                    write_json, write_md, HERE)

PAPER = {  # lambda: OCS-vClos, vClos, Best, SR, Balanced, ECMP (FIFO, Table 5)
    100: (7800.5, 9799.6, 7514.3, 10083.5, 12267.1, 35032.9),
    110: (6368.0, 6981.5, 6131.8, 7449.6, 8622.5, 25055.6),
    120: (5229.9, 5550.6, 5053.0, 6228.6, 7105.4, 23545.4),
    130: (4491.5, 4710.4, 4340.7, 4955.6, 5436.9, 13118.7),
    140: (4025.4, 4105.1, 3986.5, 4209.3, 4764.5, 11395.6),
}
PAPER_FF120 = (4081.6, 4137.2, 4029.9, 4250.5, 4607.8, 6667.6)
PCOLS = ["OCS-vClos", "vClos", "Best", "SR", "Balanced", "ECMP"]
# project policy -> (label, placement, routing); the first four are the vClos columns we cannot run
POLICIES = [
    ("OCS-vClos", "ocs-vclos", "vclos"),
    ("vClos", "vclos", "vclos"),
    ("Best", "vclos-free", "ideal"),
    ("SR", "vclos-free", "source"),
    ("Balanced", "vclos-free", "balanced-ecmp"),
    ("ECMP", "vclos-free", "ecmp"),
    ("greedy", "vclos-free", "greedy"),
]
FABRIC = {"format": "tsched.topology.v1", "name": "cluster512",
          "generate": {"kind": "leaf_spine", "leaves": 16, "spines": 32, "nodes_per_leaf": 4,
                       "gpus_per_node": 8, "nics_per_node": 8, "nic_gbps": 100, "uplinks": 1}}
SIZES = "1:40,2:10,4:10,8:15,16:8,32:7,64:5,128:3,256:2"
DURATION = "lognormal:7.0,1.5"  # median e^7 = 1,097 s, mean 3,400 s
SEED = 1


def extra(p):
    p.add_argument("--full", action="store_true", help="5,000 jobs per lambda (the paper's count; minutes)")
    p.add_argument("--jobs", type=int, default=None, help="jobs per lambda (default 400, --quick 40, --full 5000)")


def main():
    a = parse_args(__doc__, extra)
    timer = Timer()
    njobs = a.jobs or (5000 if a.full else 40 if a.quick else 400)
    lambdas = [100, 140] if a.quick else [100, 110, 120, 130, 140]
    queues = ["fifo"] if a.quick else ["fifo", "ff"]
    ts = a.topo_sched
    fab = write_json(os.path.join(a.work, "e3-fabric.json"), FABRIC)
    mix = os.path.join(HERE, "model-mix.json")
    sc = write_json(os.path.join(a.work, "e3-scenario.json"),
                    {"format": "tsched.scenario.v1", "name": "e3", "max_sim_iterations": 200, "seed": SEED})
    # which of the paper's policies this build accepts: try each once on a tiny trace
    probe = os.path.join(a.work, "e3-probe.json")
    run(ts, ["trace", "poisson", "--jobs", "2", "--mean-interarrival-s", "100", "--sizes", "16:1",
             "--duration-dist", "fixed:10", "--seed", "1", "-o", probe])
    usable, notes = [], []
    for label, placement, routing in POLICIES:
        for pl in ([placement, "best-fit"] if placement == "vclos-free" else [placement]):
            try:
                simulate(ts, fab, probe, sc, ["--placement", pl, "--routing", routing])
                usable.append((label, pl, routing))
                if pl != placement:
                    notes.append("%s: placement `%s` is %s; `%s` stands in for it." % (label, placement, NA, pl))
                break
            except Rejected as e:
                last = e
        else:
            notes.append("%s (placement `%s`, routing `%s`): %s (`%s`)." % (label, placement, routing, NA, last))
    usable_labels = [u[0] for u in usable]
    res = {}  # (queue, lambda, label) -> summary
    for L in lambdas:
        tr = os.path.join(a.work, "e3-trace-%d.json" % L)
        run(ts, ["trace", "poisson", "--jobs", str(njobs), "--mean-interarrival-s", str(L), "--sizes", SIZES,
                 "--duration-dist", DURATION, "--model-mix", mix, "--seed", str(SEED), "--compact", "-o", tr])
        # fix the work in iterations from the ideal run's t_alone (see the docstring)
        import json
        base = simulate(ts, fab, tr, sc, ["--routing", "ideal", "--placement", "best-fit"])
        doc = json.load(open(tr))
        for j, rj in zip(doc["jobs"], base["jobs"]):
            j.pop("duration_s", None)
            j["iterations"] = rj["iterations"]
        tri = write_json(os.path.join(a.work, "e3-trace-%d-iter.json" % L), doc)
        for q in queues:
            for label, pl, routing in usable:
                r = simulate(ts, fab, tri, sc, ["--placement", pl, "--routing", routing, "--queue", q])
                res[(q, L, label)] = r["summary"]
                print("  lambda %d %s %-8s avg JCT %.1f s (status %s) [%s]" %
                      (L, q, label, r["summary"]["avg_jct_s"], r["status"], timer), flush=True)

    def proj(q, L, label):
        s = res.get((q, L, label))
        return None if s is None else s["avg_jct_s"]

    # Table 5 (FIFO): paper / project per column
    hdr = ["lambda (s)"] + ["%s paper / project" % c for c in PCOLS] + ["greedy (project)"]
    rows = []
    for L in lambdas:
        row = [str(L)]
        for i, c in enumerate(PCOLS):
            v = proj("fifo", L, c)
            row.append("%s / %s" % (fmt(PAPER[L][i]), fmt(v) if c in usable_labels else "n/a"))
        row.append(fmt(proj("fifo", L, "greedy")))
        rows.append(row)
    t5 = md_table(hdr, rows)
    # the shape: every column divided by Best of its own source
    hdr2 = ["lambda (s)"] + ["%s / Best paper : project" % c for c in PCOLS if c != "Best"] + ["greedy / Best"]
    rows2 = []
    for L in lambdas:
        pb, jb = PAPER[L][2], proj("fifo", L, "Best")
        row = [str(L)]
        for i, c in enumerate(PCOLS):
            if c == "Best":
                continue
            v = proj("fifo", L, c)
            row.append("%.2f : %s" % (PAPER[L][i] / pb, "%.2f" % (v / jb) if v and jb else "n/a"))
        g = proj("fifo", L, "greedy")
        row.append("%.2f" % (g / jb) if g and jb else "n/a")
        rows2.append(row)
    t5r = md_table(hdr2, rows2)
    t6 = ""
    if "ff" in queues:
        rows3 = []
        for L in lambdas:
            row = [str(L)]
            for i, c in enumerate(PCOLS):
                v = proj("ff", L, c)
                pv = fmt(PAPER_FF120[i]) if L == 120 else "—"
                row.append("%s / %s" % (pv, fmt(v) if c in usable_labels else "n/a"))
            row.append(fmt(proj("ff", L, "greedy")))
            rows3.append(row)
        t6 = "\nFF queue (vClos Table 6 gives only lambda = 120):\n\n" + md_table(hdr, rows3)
    waits = md_table(["lambda (s)", "policy", "avg wait (s)", "avg run (s)", "avg JCT (s)", "GPU util"],
                     [[str(L), c, fmt(res[("fifo", L, c)]["avg_wait_s"]), fmt(res[("fifo", L, c)]["avg_run_s"]),
                       fmt(res[("fifo", L, c)]["avg_jct_s"]), "%.3f" % res[("fifo", L, c)]["gpu_util"]]
                      for L in lambdas for c in usable_labels])
    svg = os.path.join(a.out, "e3_vclos_table5.svg")
    series = [("project " + c, [(L, proj("fifo", L, c)) for L in lambdas]) for c in usable_labels]
    series += [("paper " + c, [(L, PAPER[L][i]) for L in lambdas]) for i, c in enumerate(PCOLS)]
    plot_lines(svg, "E3: average JCT vs lambda (FIFO), %d jobs" % njobs, "lambda: mean inter-arrival (s)",
               "average JCT (s)", series, logy=True)
    intro = ("Paper: vClos (seed 002) Table 5 (FIFO, 5,000 tasks on CLUSTER512) and Table 6 (FF). Project: %d "
             "Poisson jobs per lambda (seed %d, sizes `%s`, durations `%s`, model mix `bench/experiments/model-mix.json`), "
             "fabric leaf_spine 16 x 32, 4 nodes x 8 GPUs x 8 NICs of 100 Gbit/s per leaf, uplinks 1, trunk links, "
             "`max_sim_iterations` 200. Cells: paper / project average JCT in seconds; \"n/a\": %s."
             % (njobs, SEED, SIZES, DURATION, NA))
    notes_md = "\n".join("- " + n for n in notes)
    write_md(os.path.join(a.out, "e3_vclos_table5.md"), "E3: vClos Table 5 shape (CLUSTER512)", intro,
             t5 + "\nRatios to Best (paper : project), the shape that must hold:\n\n" + t5r + t6 +
             "\nWait and run times (FIFO):\n\n" + waits,
             "Policies not run:\n\n" + notes_md + "\n\nPlot: e3_vclos_table5.svg (log scale)")
    print("E3 run time", timer)
    write_json(os.path.join(a.out, "e3_vclos_table5.json"),
               {"experiment": "E3", "jobs": njobs,
                "results": {"%s/%d/%s" % k: v for k, v in sorted(res.items(), key=lambda kv: str(kv[0]))}})


if __name__ == "__main__":
    main()

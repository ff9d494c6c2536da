#!/usr/bin/env python3
"""E3: vClos Table 5 and Table 2 at reduced scale (seed 002 §9.2-9.6; design/sim.md §11 E3,
design/vclos.md §10).

CLUSTER512 as a leaf-spine of 16 leaves x 16 spines with 2 members of 100 Gbit/s per
leaf-spine pair, 4 nodes x 8 GPUs per leaf, 8 NICs of 100 Gbit/s per node: per leaf the
paper's 32 GPUs, 32 NICs and 32 uplinks (non-blocking), 512 GPUs in all, member links.
design/vclos.md §10 names 16 leaves x 32 spines x 1 member; OCS-vClos needs the spines to
divide the leaves (§4), so the 32 uplinks of a leaf go to 16 spines, 2 members each (32 OCSes,
one spine port per OCS). A spine may then carry two virtual spines of one job (§1).
Jobs: `topo-sched trace poisson` (Helios-like sizes 1..256 GPUs, log-normal durations, the
model mix bench/experiments/e3-model-mix.json: ring, halving-doubling and all-to-all jobs in
equal shares), seed s at every lambda (the same job set; only the arrivals stretch), seeds 1..S
(`--seeds`, default 5); every cell is the median [min, max] over the seeds. Scaling: the paper
runs 5,000 jobs per lambda (`--full`); the default runs the first 1,000 of the same Poisson
process (`--tasks N`) so that E2 and E3 together fit in about 40 minutes of one core (the
cost measured is in doc/EXPERIMENTS.md), with `max_sim_iterations` 200 (coarsened
iterations). `--jobs N` runs N (at most 2) (seed, lambda) units at once. `place_time_limit_ms` 0: the vclos ILPs run to optimality (no wall-clock timeouts, so
the run is deterministic). Work per job is fixed in iterations: the trace's durations become iterations once,
by the t_alone of a `vclos-free` + `ideal` run, so that every policy does the same work.
Policies (the paper's names): OCS-vClos (placement `ocs-vclos`, routing `vclos` implied),
vClos (`vclos`), Best (`vclos-free` + `ideal`), SR (`vclos-free` + `source`), Balanced
(`vclos-free` + `balanced-ecmp`), ECMP (`vclos-free` + `ecmp`); queue FIFO (Table 5; --ff
adds FF at lambda 120, Table 6).
"""

import json
import os

from common import (Timer, fmt, md_table, median, parallel, parse_args, run, spread, write_json, write_md, HERE)
import plot_svg

PAPER = {  # lambda: OCS-vClos, vClos, Best, SR, Balanced, ECMP (FIFO, Table 5)
    100: (7800.5, 9799.6, 7514.3, 10083.5, 12267.1, 35032.9),
    110: (6368.0, 6981.5, 6131.8, 7449.6, 8622.5, 25055.6),
    120: (5229.9, 5550.6, 5053.0, 6228.6, 7105.4, 23545.4),
    130: (4491.5, 4710.4, 4340.7, 4955.6, 5436.9, 13118.7),
    140: (4025.4, 4105.1, 3986.5, 4209.3, 4764.5, 11395.6),
}
PAPER_FF120 = (4081.6, 4137.2, 4029.9, 4250.5, 4607.8, 6667.6)
# Table 2: waits caused by GPU / network, vClos then OCS-vClos, 5,000 jobs
PAPER_T2 = {100: ((1311, 264), (1180, 172)), 110: ((988, 250), (1047, 161)),
            120: ((878, 218), (920, 129)), 130: ((726, 145), (705, 98))}
# §9.4 at lambda 120 (relative changes)
PAPER_94 = [("vClos", "JRT", "SR", -3.1), ("OCS-vClos", "JRT", "SR", -3.1), ("vClos", "JRT", "Balanced", -6.17),
            ("OCS-vClos", "JRT", "Balanced", -6.17), ("OCS-vClos", "JWT", "SR", -65.65),
            ("OCS-vClos", "JWT", "vClos", -20.35), ("OCS-vClos", "JCT", "Best", 3.38)]
PCOLS = ["OCS-vClos", "vClos", "Best", "SR", "Balanced", "ECMP"]
POLICIES = [  # label, placement, routing (None: the placement's own, `vclos`)
    ("OCS-vClos", "ocs-vclos", None),
    ("vClos", "vclos", None),
    ("Best", "vclos-free", "ideal"),
    ("SR", "vclos-free", "source"),
    ("Balanced", "vclos-free", "balanced-ecmp"),
    ("ECMP", "vclos-free", "ecmp"),
]
# the ordering that must hold (design/vclos.md §10): ECMP > Balanced > SR > vClos >= OCS-vClos >= Best
ORDER = [("ECMP", ">", "Balanced"), ("Balanced", ">", "SR"), ("SR", ">", "vClos"), ("vClos", ">=", "OCS-vClos"),
         ("OCS-vClos", ">=", "Best")]
FABRIC = {"format": "tsched.topology.v1", "name": "cluster512",
          "generate": {"kind": "leaf_spine", "leaves": 16, "spines": 16, "nodes_per_leaf": 4,
                       "gpus_per_node": 8, "nics_per_node": 8, "nic_gbps": 100, "uplinks": 2}}
SIZES = "1:40,2:10,4:10,8:15,16:8,32:7,64:5,128:3,256:2"
DURATION = "lognormal:7.0,1.5"  # median e^7 = 1,097 s, mean 3,400 s
MIX = "e3-model-mix.json"


def extra(p):
    p.add_argument("--full", action="store_true", help="5,000 jobs per lambda (the paper's count; long)")
    p.add_argument("--tasks", type=int, default=None, help="jobs per lambda (default 1000, --quick 20, --full 5000)")
    p.add_argument("--seeds", type=int, default=None, help="seeds (default 5, --quick 2)")
    p.add_argument("--jobs", type=int, default=1, help="(seed, lambda) units run at once, 1 or 2 (default 1)")
    p.add_argument("--ff", action="store_true", help="also the FF queue at lambda 120 (Table 6)")


def sim(ts, fab, trace, sc, flags):
    args = ["simulate", "-t", fab, "-w", trace, "-s", sc, "--quiet", "--no-timing", "--compact"] + flags
    r = run(ts, args, check=False)
    if r.returncode != 0:
        return None, r.stderr.strip()
    return json.loads(r.stdout), None


def flags_of(pl, rt, q="fifo"):
    return ["--placement", pl, "--queue", q] + (["--routing", rt] if rt else [])


def holds(v, op, w):
    return v > w if op == ">" else v >= w


def main():
    a = parse_args(__doc__, extra)
    a.jobs = max(1, min(2, a.jobs))
    timer = Timer()
    njobs = a.tasks or (5000 if a.full else 20 if a.quick else 1000)
    seeds = list(range(1, 1 + (a.seeds or (2 if a.quick else 5))))
    lambdas = [120] if a.quick else [100, 110, 120, 130, 140]
    ts = a.topo_sched
    fab = write_json(os.path.join(a.work, "e3-fabric.json"), FABRIC)
    mix = os.path.join(HERE, MIX)
    # which policies this build runs: each once on a tiny trace
    probe = os.path.join(a.work, "e3-probe.json")
    sc1 = write_json(os.path.join(a.work, "e3-scenario-1.json"),
                     {"format": "tsched.scenario.v1", "name": "e3", "max_sim_iterations": 200, "seed": 1,
                      "place_time_limit_ms": 0})
    run(ts, ["trace", "poisson", "--jobs", "3", "--mean-interarrival-s", "100", "--sizes", "8:1,64:1",
             "--duration-dist", "fixed:10", "--seed", "1", "-o", probe])
    usable, notes = [], []
    for label, pl, rt in POLICIES:
        _, err = sim(ts, fab, probe, sc1, flags_of(pl, rt))
        if err:
            notes.append("%s (placement `%s`%s) does not run in this build: `%s`." %
                         (label, pl, ", routing `%s`" % rt if rt else "", err))
        else:
            usable.append((label, pl, rt))
    labels = [u[0] for u in usable]

    def one(unit):
        seed, L = unit
        tag = "e3-s%d-%d" % (seed, L)
        sc = write_json(os.path.join(a.work, tag + "-scenario.json"),
                        {"format": "tsched.scenario.v1", "name": "e3", "max_sim_iterations": 200, "seed": seed,
                         "place_time_limit_ms": 0})
        tr = os.path.join(a.work, tag + "-trace.json")
        run(ts, ["trace", "poisson", "--jobs", str(njobs), "--mean-interarrival-s", str(L), "--sizes", SIZES,
                 "--duration-dist", DURATION, "--model-mix", mix, "--seed", str(seed), "--compact", "-o", tr])
        base, err = sim(ts, fab, tr, sc, flags_of("vclos-free", "ideal"))
        if err:
            raise SystemExit("E3: the base run failed: " + err)
        doc = json.load(open(tr))
        for j, rj in zip(doc["jobs"], base["jobs"]):
            j.pop("duration_s", None)
            j["iterations"] = rj["iterations"]
        tri = write_json(os.path.join(a.work, tag + "-iter.json"), doc)
        out = {}
        runs = [("fifo", u) for u in usable] + ([("ff", u) for u in usable] if a.ff and L == 120 else [])
        for q, (label, pl, rt) in runs:
            r, err = sim(ts, fab, tri, sc, flags_of(pl, rt, q))
            if err:
                out[(q, L, label)] = "run failed: " + err
                continue
            out[(q, L, label)] = r["summary"]
        return out

    units = [(s, L) for s in seeds for L in lambdas]
    res = {}  # (queue, lambda, label) -> [summary per seed]
    for out in parallel(one, units, a.jobs, "E3 (seed, lambda) units"):
        for k, v in out.items():
            res.setdefault(k, []).append(v)
    failed = sorted({"%s at lambda %d: %s" % (k[2], k[1], v) for k, vs in res.items() for v in vs
                     if isinstance(v, str)})

    def vals(L, label, key="avg_jct_s", q="fifo"):
        return [s[key] for s in res.get((q, L, label), []) if isinstance(s, dict)]

    def val(L, label, key="avg_jct_s", q="fifo"):
        return median(vals(L, label, key, q))

    def cell(L, c, key="avg_jct_s", q="fifo", nd=0):
        return spread(vals(L, c, key, q), nd) if c in labels else "n/a"

    # Table 5 beside the paper
    hdr = ["lambda (s)"] + ["%s paper / project" % c for c in PCOLS]
    t5 = md_table(hdr, [[str(L)] + ["%s / %s" % (fmt(PAPER[L][i], 0), cell(L, c)) for i, c in enumerate(PCOLS)]
                        for L in lambdas])
    tw = md_table(["lambda (s)"] + PCOLS, [[str(L)] + [cell(L, c, "avg_wait_s") for c in PCOLS] for L in lambdas])
    tr_ = md_table(["lambda (s)"] + PCOLS, [[str(L)] + [cell(L, c, "avg_run_s") for c in PCOLS] for L in lambdas])
    # ratios to Best, paired per seed
    hdr2 = ["lambda (s)"] + ["%s / Best paper : project" % c for c in PCOLS if c != "Best"]
    rows2 = []
    for L in lambdas:
        jb = vals(L, "Best")
        rows2.append([str(L)] + ["%.2f : %s" % (PAPER[L][i] / PAPER[L][2],
                                                spread([x / y for x, y in zip(vals(L, c), jb)], 3)
                                                if c in labels and len(vals(L, c)) == len(jb) else "n/a")
                                 for i, c in enumerate(PCOLS) if c != "Best"])
    t5r = md_table(hdr2, rows2)
    # the ordering, per lambda: in how many seeds it holds
    order_rows, order_ok = [], {}
    for L in lambdas:
        pv = dict(zip(PCOLS, PAPER[L]))
        paper_ok = all(holds(pv[x], op, pv[y]) for x, op, y in ORDER)
        nok, fails = 0, {}
        for si in range(len(seeds)):
            ok = True
            for x, op, y in ORDER:
                vx, vy = vals(L, x), vals(L, y)
                if si >= len(vx) or si >= len(vy) or not holds(vx[si], op, vy[si]):
                    ok = False
                    fails["%s %s %s" % (x, op, y)] = fails.get("%s %s %s" % (x, op, y), 0) + 1
            nok += ok
        order_ok[L] = nok
        order_rows.append([str(L), "holds" if paper_ok else "fails", "%d of %d seeds" % (nok, len(seeds)),
                           "; ".join("%s fails in %d" % kv for kv in sorted(fails.items())) or "—"])
    torder = md_table(["lambda (s)", "paper", "project: holds in", "project: which step fails"], order_rows)
    falls = {c: all(val(L1, c) is not None and val(L2, c) is not None and val(L2, c) < val(L1, c)
                    for L1, L2 in zip(lambdas, lambdas[1:])) for c in labels}
    # Table 2: waits by cause
    t2rows = []
    for L in lambdas:
        p = PAPER_T2.get(L)
        vn, on = vals(L, "vClos", "waits_network"), vals(L, "OCS-vClos", "waits_network")
        pratio = "%.2f" % (p[1][1] / p[0][1]) if p else "—"
        ratio = spread([x / y for x, y in zip(on, vn) if y], 2) if on and vn else "n/a"
        t2rows.append([str(L), "%d / %d" % p[0] if p else "—",
                       "%s / %s" % (cell(L, "vClos", "waits_gpu"), cell(L, "vClos", "waits_network")),
                       "%d / %d" % p[1] if p else "—",
                       "%s / %s" % (cell(L, "OCS-vClos", "waits_gpu"), cell(L, "OCS-vClos", "waits_network")),
                       pratio, ratio])
    t2 = md_table(["lambda (s)", "vClos gpu / network: paper (5,000 jobs)", "project (%d jobs)" % njobs,
                   "OCS-vClos gpu / network: paper", "project", "network OCS / vClos: paper", "project"], t2rows)
    # §9.4 at lambda 120, paired per seed
    t94 = ""
    if 120 in lambdas:
        def rel(x, y, key):
            vx, vy = vals(120, x, key), vals(120, y, key)
            if not vx or len(vx) != len(vy):
                return "n/a"
            return spread([100 * (p / q - 1) for p, q in zip(vx, vy) if q], 2, sign=True)
        keys = {"JRT": "avg_run_s", "JWT": "avg_wait_s", "JCT": "avg_jct_s"}
        rows94 = [["%s %s vs %s" % (x, m, y), "%+.2f %%" % pv, rel(x, y, keys[m])] for x, m, y, pv in PAPER_94]
        t94 = ("\nAt lambda 120 (paper §9.4; JRT = average run time, JWT = average wait; project: median [min, max] "
               "of the per-seed change, %):\n\n" + md_table(["comparison", "paper", "project"], rows94))
    t6 = ""
    if a.ff and 120 in lambdas:
        t6 = ("\nFF queue at lambda 120 (Table 6), paper / project:\n\n" +
              md_table(PCOLS, [["%s / %s" % (fmt(PAPER_FF120[i], 0), cell(120, c, q="ff")) for i, c in
                                enumerate(PCOLS)]]))
    svg = os.path.join(a.out, "e3_vclos_table5.svg")
    series = [("project " + c, [(L, val(L, c)) for L in lambdas]) for c in labels]
    series += [("paper " + c, [(L, PAPER[L][i]) for L in lambdas]) for i, c in enumerate(PCOLS)]
    plot_svg.line_chart(svg, "E3: average JCT vs lambda (FIFO), %d jobs, median of %d seeds" % (njobs, len(seeds)),
                        "lambda: mean inter-arrival (s)", "average JCT (s)", series, True)
    intro = ("Paper: vClos (seed 002) Table 5 (FIFO, 5,000 tasks on CLUSTER512) and Table 2. Project: the first %d "
             "jobs of a Poisson process per lambda and seed (seeds %s, sizes `%s`, durations `%s`, model mix "
             "`bench/experiments/%s`: ring, halving-doubling and all-to-all jobs), fabric leaf_spine 16 leaves x 16 "
             "spines, 4 nodes x 8 GPUs x 8 NICs of 100 Gbit/s per leaf, two 100 Gbit/s members per pair, member "
             "links, `max_sim_iterations` 200, `place_time_limit_ms` 0 (no solver timeouts). Project cells: median "
             "[min, max] over the seeds." % (njobs, ", ".join(map(str, seeds)), SIZES, DURATION, MIX))
    body = ("Average JCT (s), paper / project:\n\n" + t5 + "\nAverage JWT (wait, s):\n\n" + tw +
            "\nAverage JRT (run, s):\n\n" + tr_ + "\nRatios to Best (paper : project, per seed):\n\n" + t5r +
            "\nECMP > Balanced > SR > vClos >= OCS-vClos >= Best in average JCT:\n\n" + torder +
            "\nMedian JCT falls as lambda grows: " + ", ".join("%s %s" % (c, "yes" if falls[c] else "no")
                                                              for c in labels) +
            ".\n\nTable 2, jobs that waited, by the cause at their last failed attempt (gpu / network):\n\n" + t2 +
            t94 + t6)
    notes_md = "\n".join("- " + n for n in notes + failed) if notes or failed else "- every policy ran."
    write_md(os.path.join(a.out, "e3_vclos_table5.md"), "E3: vClos Table 5 and Table 2 (CLUSTER512, seeds)",
             intro, body, "Policies:\n\n" + notes_md + "\n\nPlot: e3_vclos_table5.svg (log scale, medians).\n\n"
             "Run time: %s." % timer)
    print("E3 run time", timer)
    write_json(os.path.join(a.out, "e3_vclos_table5.json"),
               {"experiment": "E3", "jobs": njobs, "seeds": seeds,
                "order_holds_seeds": {str(L): v for L, v in order_ok.items()},
                "jct_falls_with_lambda": falls, "not_run": notes + failed,
                "results": {"%s/%d/%s" % k: v for k, v in sorted(res.items(), key=lambda kv: str(kv[0]))}})

if __name__ == "__main__":
    main()

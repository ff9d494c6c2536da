#!/usr/bin/env python3
"""E6: Crius on a heterogeneous cluster (seed 003 §8; design/sim.md §11 E6, design/cell.md §9).

Fabric: the Alibaba cluster-trace-gpu-v2023 node list (12 pools: P100, T4, V100M16, V100M32,
A10, G2, G3 with 1/2/4/8 GPUs per node), every pool scaled down to `--fraction` of its nodes
(at least one node per pool) by alibaba_nodes.py: "moderate" load at 1/64 (28 nodes, 131
GPUs: the inventory's mix at about the size of the paper's 64-GPU testbed, so that the
trace's load queues) and "heavy" load at half that (20 nodes, 91 GPUs); one 100 Gbit/s NIC per
node. G2 and G3 are undisclosed: bench/experiments/e6-gpus.json ASSUMES both are A100-class
(G2 80 GB, G3 40 GB).

Jobs: the pods of `--days` days of the pod list from `--start-day` (trace days; `topo-sched
trace convert-alibaba` keeps their arrival times and durations), arrivals shifted to 0. Each
job draws (seeded) a BERT size of Crius Table 2 (0.76, 1.3, 2.6, 6.7 B parameters: hidden
1536/2048/2560/4096, 24/24/32/32 layers, seq 512, vocab 30522) and a global batch of Table 2
(128, 256, 512); its N_G is 4, 4, 8 or 16 GPUs by size, times the pod's GPU count, at most
32. Its reference Cell (best over pools at N = N_G: `topo-sched cells`, or bench/e6_reference
from the library's scheduler) gives the reference iteration time T_ref; the job asks for
iterations = round(min(duration, --cap-hours) / T_ref), so at reference speed it runs its
traced (capped) duration. Jobs with no feasible Cell on the fabric are dropped (counted).

Runs (schedule_interval_s 300 in all, max_sim_iterations 50): placement `crius` (the cell
module's scheduler, depth 3, objective normalized; and depth 0: running jobs never move, the
paper's depth ablation); placement `best-fit` with compute_ms =
T_ref and no phases (design/sim.md §11), queue `fifo` (FCFS) and `ff` (smallest first): these
run every job at its best pool's speed wherever it lands, an optimistic baseline; and `best-fit`
`ff` on the A100-class nodes alone (every job at its true speed, fewer GPUs: a pessimistic
one). Each run goes to the end (JCT; queueing = wait before the first start) and to each of
12 instants over the arrival span (throughput = sum of global batch x iterations done per
second, over the whole span and its best twelfth: peak).
"""

import collections
import json
import os
import random
import subprocess

from common import (HERE, REPO, SHARED_DATA, Rejected, Timer, fmt, md_table, parse_args, plot_lines, run,
                    simulate, write_json, write_md)
import alibaba_nodes

# Crius Table 2 BERT sizes we can model (hidden, layers): Alpa's 760M, 1.3B, 2.6B, 6.7B shapes.
BERT = [("BERT-0.76B", 1536, 24, 4), ("BERT-1.3B", 2048, 24, 4), ("BERT-2.6B", 2560, 32, 8),
        ("BERT-6.7B", 4096, 32, 16)]
BATCHES = [128, 256, 512]
SEQ, VOCAB = 512, 30522
PAPER = {"testbed": {"jct": -48.9, "wait": -71.0, "thr": 1.49}, "sim": {"jct": "-66.4 to -81.3", "thr": 1.54}}
SEED = 3
INTERVAL = 300
MAX_ITERS = 50
SAMPLES = 12          # throughput windows over the arrival span
FAST_TYPES = {"G2", "G3"}  # the A100-class pools (assumed)
FAST_LABEL = "best-fit, ff, A100-class only"
BASELINES = ["best-fit, fifo", "best-fit, ff", FAST_LABEL]


def extra(p):
    p.add_argument("--fraction", type=float, default=1 / 64, help="share of each pool's nodes (default 1/64)")
    p.add_argument("--start-day", type=float, default=129, help="first trace day of the window (default 129)")
    p.add_argument("--days", type=float, default=None, help="window length in days (default 2; quick 0.08)")
    p.add_argument("--cap-hours", type=float, default=6, help="cap on a pod's duration (default 6 h)")
    p.add_argument("--seed", type=int, default=SEED)


def skipped(md, msg):
    print(msg)
    with open(md, "w") as f:
        f.write("# E6: Crius on a heterogeneous cluster\n\n%s\n" % msg)


def has_cells(ts):
    """Does the CLI have `cells`? (without arguments it asks for them; an older one names it unknown)"""
    r = subprocess.run([ts, "cells"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return "unknown command" not in r.stderr


def refs_cli(a, topo, cat, combos):
    """{(size, gb, ng): T_ref} by `topo-sched cells` (design/cell.md §5 step 1: the best feasible
    Cell at N = N_G over every pool, else the best over all of the job's Cells)."""
    out = {}
    for (size, gb, ng) in sorted(combos):
        _, h, l, _ = BERT[size]
        job = write_json(os.path.join(a.work, "e6-job.json"),
                         {"format": "tsched.job.v1", "name": "ref", "gpus": ng, "tp": 1, "pp": 1,
                          "model": {"hidden": h, "layers": l, "vocab": VOCAB, "seq": SEQ, "global_batch": gb,
                                    "micro_batch": 1}})
        doc = json.loads(run(a.topo_sched, ["cells", "-t", topo, "-j", job, "-c", cat, "--no-timing",
                                            "--compact"]).stdout)
        feas = [c for c in doc["cells"] if c.get("feasible")]
        at_ng = [c for c in feas if c["gpus"] == ng]
        best = max(at_ng or feas, key=lambda c: c["throughput"], default=None)
        out[(size, gb, ng)] = best["iteration_s"] if best else None
    return out


def refs_lib(a, topo, cat, combos):
    """The same from the library's scheduler (bench/e6_reference: tsched_crius_job_reference), or None."""
    # beside the CLI's build (BUILD/src/cli/topo-sched -> BUILD/bench/e6_reference), else build/
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(a.topo_sched))))
    prog = os.path.join(build, "bench", "e6_reference")
    if not os.access(prog, os.X_OK):
        prog = os.path.join(REPO, "build", "bench", "e6_reference")
    if not os.access(prog, os.X_OK):
        return None
    lines = []
    keys = sorted(combos)
    for i, (size, gb, ng) in enumerate(keys):
        _, h, l, _ = BERT[size]
        lines.append("c%d %d %d %d %d %d %d" % (i, ng, h, l, VOCAB, SEQ, gb))
    r = subprocess.run([prog, topo, cat], input="\n".join(lines) + "\n", stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise Rejected("bench/e6_reference: %s" % r.stderr.strip())
    refs = dict(l.split() for l in r.stdout.split("\n") if l.strip())
    out = {}
    for i, k in enumerate(keys):
        thr = float(refs["c%d" % i])
        out[k] = k[1] / thr if thr > 0 else None
    return out


def references(a, topo, cat, combos):
    """({(size, gb, ng): T_ref}, how): `topo-sched cells` when the CLI has it, checked against
    bench/e6_reference when that is built too; else bench/e6_reference alone."""
    lib = refs_lib(a, topo, cat, combos)
    if not has_cells(a.topo_sched):
        if lib is None:
            raise Rejected("neither `topo-sched cells` nor bench/e6_reference is available")
        return lib, "bench/e6_reference (the CLI has no `cells`)"
    cli = refs_cli(a, topo, cat, combos)
    if lib is None:
        return cli, "topo-sched cells"
    worst = 0.0
    for k in cli:
        x, y = cli[k], lib[k]
        if (x is None) != (y is None):
            raise Rejected("reference of %s: topo-sched cells %s, the library %s" % (k, x, y))
        if x is not None:
            worst = max(worst, abs(x - y) / y)
    if worst > 1e-9:
        raise Rejected("topo-sched cells and the library's scheduler disagree on reference speeds (%.3g relative)"
                       % worst)
    return cli, "topo-sched cells (equal to the library scheduler's tsched_crius_job_reference, %.1g relative)" % worst


def window_jobs(a, pods_json):
    doc = json.load(open(pods_json))
    lo, hi = a.start_day * 86400, (a.start_day + a.days) * 86400
    pods = sorted((j for j in doc["jobs"] if lo <= j["arrival_s"] < hi), key=lambda j: (j["arrival_s"], j["name"]))
    return pods, lo


def simulate_all(a, topo, topo_fast, cat, base, window, tag, timer):
    """The three runs to the end, and to each sample instant (throughput over time)."""
    tr_crius = write_json(os.path.join(a.work, "e6-%s-trace-crius.json" % tag),
                          {"format": "tsched.trace.v1", "name": "e6", "jobs": base})
    tr_bf = write_json(os.path.join(a.work, "e6-%s-trace-bestfit.json" % tag),
                       {"format": "tsched.trace.v1", "name": "e6",
                        "jobs": [dict(j, compute_ms=j["reference_iteration_s"] * 1000) for j in base]})
    runs = [("best-fit, fifo", tr_bf, {"placement": "best-fit", "queue": "fifo"}, topo),
            ("best-fit, ff", tr_bf, {"placement": "best-fit", "queue": "ff"}, topo),
            (FAST_LABEL, tr_bf, {"placement": "best-fit", "queue": "ff"}, topo_fast),
            ("crius", tr_crius, {"placement": "crius", "gpus": cat}, topo),
            ("crius, depth 0", tr_crius, {"placement": "crius", "gpus": cat, "crius_depth": 0}, topo)]
    step = window / SAMPLES
    res = {}
    for label, tr, pol, fab in runs:
        out = {"samples": []}
        for k in range(SAMPLES + 1):
            until = None if k == SAMPLES else (k + 1) * step
            sc = dict({"format": "tsched.scenario.v1", "name": "e6-" + label.replace(", ", "-"), "seed": 1,
                       "schedule_interval_s": INTERVAL, "max_sim_iterations": MAX_ITERS}, **pol)
            if until is not None:
                sc["until_s"] = until
            scp = write_json(os.path.join(a.work, "e6-scenario.json"), sc)
            r = simulate(a.topo_sched, fab, tr, scp)
            if until is None:
                out["end"] = r
            else:
                out["samples"].append((until, r))
        res[label] = out
        r = out["end"]
        print("  %-6s %-15s %s: %d/%d jobs done, avg JCT %s s, wait %s s [%s]" %
              (tag, label, r["status"], r["summary"]["jobs_done"], len(base), fmt(r["summary"]["avg_jct_s"]),
               fmt(r["summary"]["avg_wait_s"]), timer), flush=True)
    return res, [r[0] for r in runs]


def metrics(out, base, window, node_type, fast_types):
    gb_of = {j["name"]: j["model"]["global_batch"] for j in base}
    end = out["end"]
    s = end["summary"]
    jobs = end["jobs"]

    def seqs(r):
        return sum(gb_of[j["name"]] * j["iterations_done"] for j in r["jobs"])

    series, prev_t, prev_s = [], 0.0, 0.0
    for t, r in out["samples"]:
        x = seqs(r)
        series.append((t, (x - prev_s) / (t - prev_t)))
        prev_t, prev_s = t, x
    types = collections.Counter()
    slow_gpu_s, gpu_s = 0.0, 0.0
    for j in jobs:
        nodes = j["nodes"]
        if j.get("cell"):
            types[j["cell"]["pool"].split("/")[0]] += 1
        if j["run_s"] is not None and nodes:
            g = j.get("node_gpus") or [j["gpus"] / len(nodes)] * len(nodes)
            for n, k in zip(nodes, g):
                gpu_s += k * j["run_s"]
                if node_type[n] not in fast_types:
                    slow_gpu_s += k * j["run_s"]
    return {"jct": s["avg_jct_s"], "wait": s["avg_wait_s"], "run": s["avg_run_s"], "makespan": s["makespan_s"],
            "done": s["jobs_done"], "status": end["status"],
            "thr_window": seqs(out["samples"][-1][1]) / window,
            "thr_peak": max(y for _, y in series), "thr_run": seqs(end) / s["makespan_s"] if s["makespan_s"] else None,
            "restarts": sum(j["restarts"] for j in jobs) / len(jobs),
            "gpu_util": s["gpu_util"], "crius_events": s.get("crius_events"), "final_types": dict(types),
            "slow_share": slow_gpu_s / gpu_s if gpu_s else 0.0, "series": series}


def pct(x, y):
    return "%+.1f %%" % (100 * (x / y - 1)) if x is not None and y else "—"


def ratio(x, y):
    return "%.2fx" % (x / y) if x is not None and y else "—"


def table_rows(tag, m, labels):
    c = m["crius"]
    rows = []
    for key, name, nd in [("jct", "average JCT (s)", 0), ("wait", "average queueing (s)", 0),
                          ("run", "average run time (s)", 0),
                          ("thr_window", "throughput, arrival window (seq/s)", 1),
                          ("thr_peak", "throughput, peak window (seq/s)", 1),
                          ("gpu_util", "GPU utilisation (all GPUs)", 3),
                          ("slow_share", "GPU-time on non-A100-class pools", 2),
                          ("restarts", "restarts per job", 2)]:
        vals = [fmt(m[l][key], nd) for l in labels]
        if key.startswith("thr"):
            cmp = [ratio(c[key], m[b][key]) for b in BASELINES]
            paper = ["%.2fx" % PAPER["testbed"]["thr"], "%.2fx" % PAPER["sim"]["thr"]] if key == "thr_window" else \
                ["1.36x", "1.57x"]
        elif key in ("jct", "wait", "run"):
            cmp = [pct(c[key], m[b][key]) for b in BASELINES]
            paper = {"jct": ["%+.1f %%" % PAPER["testbed"]["jct"], "%s %%" % PAPER["sim"]["jct"]],
                     "wait": ["%+.1f %%" % PAPER["testbed"]["wait"], ""], "run": ["", ""]}[key]
        elif key == "restarts":
            cmp, paper = [""] * len(BASELINES), ["", "2.29 (depth 3)"]
        else:
            cmp, paper = [""] * len(BASELINES), ["", ""]
        rows.append([tag, name] + vals + cmp + paper)
    return rows


def main():
    a = parse_args(__doc__, extra)
    if a.days is None:
        a.days = 0.08 if a.quick else 2
    timer = Timer()
    md = os.path.join(a.out, "e6_crius.md")
    data = os.path.join(SHARED_DATA, "alibaba-cluster-trace-gpu-v2023")
    nodes_csv, pods_csv = os.path.join(data, "openb_node_list_gpu_node.csv"), os.path.join(data, "openb_pod_list_default.csv")
    if not (os.path.isfile(nodes_csv) and os.path.isfile(pods_csv)):
        return skipped(md, "E6 skipped: %s is absent (the Alibaba v2023 node and pod lists live in ../shared/data)." % data)
    cat = os.path.join(HERE, "e6-gpus.json")
    pods_json = os.path.join(a.work, "e6-pods.json")
    run(a.topo_sched, ["trace", "convert-alibaba", pods_csv, "--seed", "1", "--compact", "-o", pods_json])
    pods, t0 = window_jobs(a, pods_json)
    rng = random.Random(a.seed)
    drawn = []
    for p in pods:
        size = rng.randrange(len(BERT))
        gb = rng.choice(BATCHES)
        drawn.append((p, size, gb, min(32, BERT[size][3] * p["gpus"])))

    # moderate load: the fraction asked; heavy load: half of it (not in --quick)
    configs = [("moderate", a.fraction)] + ([] if a.quick or a.fraction / 2 < 1 / 549 else [("heavy", a.fraction / 2)])
    rows, plots, results, intro_parts = [], [], {}, []
    labels = None
    for tag, frac in configs:
        fabric, kept = alibaba_nodes.convert(nodes_csv, frac)
        topo = write_json(os.path.join(a.work, "e6-%s-fabric.json" % tag), fabric)
        fast = dict(fabric, nodes=[n for n in fabric["nodes"] if n["gpu_type"] in FAST_TYPES])
        topo_fast = write_json(os.path.join(a.work, "e6-%s-fabric-fast.json" % tag), fast)
        node_type = {n["name"]: n["gpu_type"] for n in fabric["nodes"]}
        try:
            refs, ref_how = references(a, topo, cat, {(s, gb, ng) for _, s, gb, ng in drawn})
        except Rejected as e:
            return skipped(md, "E6 skipped: the cell module is not usable in this build (%s)." % e)
        cap = a.cap_hours * 3600
        base, dropped, mix = [], 0, collections.Counter()
        for p, size, gb, ng in drawn:
            T = refs[(size, gb, ng)]
            if T is None:
                dropped += 1
                continue
            name, h, l, _ = BERT[size]
            mix[name] += 1
            base.append({"name": p["name"], "arrival_s": p["arrival_s"] - t0, "gpus": ng,
                         "iterations": max(1, int(round(min(p["duration_s"], cap) / T))),
                         "model": {"hidden": h, "layers": l, "vocab": VOCAB, "seq": SEQ, "global_batch": gb,
                                   "micro_batch": 1},
                         "model_name": name, "reference_iteration_s": T})
        if not base:
            return skipped(md, "E6 skipped: no job of the window has a feasible Cell on the fabric.")
        window = max(j["arrival_s"] for j in base) or 1.0
        try:
            res, labels = simulate_all(a, topo, topo_fast, cat, base, window, tag, timer)
        except Rejected as e:
            return skipped(md, "E6 skipped: placement crius is not available in this build (%s)." % e)
        m = {l: metrics(res[l], base, window, node_type, FAST_TYPES) for l in labels}
        demand = sum(j["gpus"] * j["iterations"] * j["reference_iteration_s"] for j in base)
        gpus_total = sum(n["gpus"] for n in fabric["nodes"])
        results[tag] = {"fraction": frac, "gpus": gpus_total, "nodes": len(fabric["nodes"]), "jobs": len(base),
                        "dropped": dropped, "window_s": window, "reference": ref_how,
                        "load": demand / (gpus_total * window), "metrics": m}
        rows += table_rows("%s (%d GPUs)" % (tag, gpus_total), m, labels)
        plots.append((tag, m))
        intro_parts.append(
            "*%s*: %.4g of each pool, %d nodes, %d GPUs (%s); offered load %.2f (GPU-time of every job at N_G and its "
            "reference speed / (GPUs x window))"
            % (tag, frac, len(fabric["nodes"]), gpus_total, ", ".join("%s x%d" % kv for kv in kept.items()),
               demand / (gpus_total * window)))
    table = md_table(["load", "metric"] + labels + ["crius vs " + b for b in BASELINES] +
                     ["paper, testbed (64 GPUs)", "paper, simulation (1,280 GPUs)"], rows)
    svg = os.path.join(a.out, "e6_crius.svg")
    series = []
    for tag, m in plots:
        for l in labels:
            series.append(("%s, %s" % (tag, l), [(t / 3600, y) for t, y in m[l]["series"]]))
    plot_lines(svg, "E6: cluster throughput over time (sequences/s, %d windows)" % SAMPLES, "time (h)",
               "sequences per second", series)
    first = results[configs[0][0]]
    intro = (
        "Paper: Crius (seed 003) §8.3-8.4: on 32 A40 + 32 A10 GPUs (244 Philly jobs) average JCT -48.9 %%, queueing "
        "-71.0 %%, 1.49x average and 1.36x peak throughput; on the simulated 1,280-GPU cluster JCT -66.4 %% to "
        "-81.3 %% against its four baselines, 1.54x average and 1.57x peak throughput, 2.29 restarts per job. "
        "Project: the Alibaba v2023 inventory scaled per pool (G2, G3 ASSUMED A100-class: "
        "bench/experiments/e6-gpus.json): %s. Jobs: %d pods of trace days [%g, %g) (%d dropped: no feasible Cell), "
        "models %s, global batch 128/256/512, N_G 4-32, durations capped at %g h; reference iteration times from %s. "
        "Placement crius vs best-fit with compute_ms = the reference Cell's iteration time: best-fit runs every job at "
        "its best pool's speed (A100-class here) wherever it lands. schedule_interval_s %d, max_sim_iterations %d; "
        "throughput = global batch x iterations done / time, over the arrival window (%.0f s) and the best of %d "
        "equal windows (peak)."
        % ("; ".join(intro_parts), first["jobs"], a.start_day, a.start_day + a.days, first["dropped"],
           ", ".join("%s %d" % kv for kv in sorted(mix.items())), a.cap_hours, first["reference"], INTERVAL,
           MAX_ITERS, first["window_s"], SAMPLES))
    notes = "\n".join(
        "- %s: %s; Crius ran %s scheduling events; final Cells by GPU type %s." %
        (tag, ", ".join("%s %s (%d/%d done)" % (l, m[l]["status"], m[l]["done"], results[tag]["jobs"]) for l in labels),
         m["crius"]["crius_events"], json.dumps(m["crius"]["final_types"], sort_keys=True))
        for tag, m in plots) + "\n\nPlot: e6_crius.svg (throughput per window)."
    write_md(md, "E6: Crius on a heterogeneous cluster", intro, table, notes)
    for r in results.values():
        for m in r["metrics"].values():
            m["series"] = [[t, y] for t, y in m["series"]]
    write_json(os.path.join(a.out, "e6_crius.json"), {"experiment": "E6", "results": results, "paper": PAPER})
    print("E6 run time", timer)


if __name__ == "__main__":
    main()

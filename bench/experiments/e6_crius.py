#!/usr/bin/env python3
"""E6: Crius on a heterogeneous cluster (seed 003 §8; design/sim.md §11 E6, design/cell.md §9).

Fabric: the Alibaba cluster-trace-gpu-v2023 node list (12 pools: P100, T4, V100M16, V100M32,
A10, G2, G3 with 1/2/4/8 GPUs per node), every pool scaled down to `--fraction` of its nodes
(at least one; default 1/64: 34 nodes, 131 GPUs: the inventory's pool mix at about the
size of the paper's 64-GPU testbed, so that the trace's load queues) by alibaba_nodes.py; one 100 Gbit/s NIC per node. G2 and G3 are
undisclosed: bench/experiments/e6-gpus.json ASSUMES both are A100-class (G2 80 GB, G3 40 GB).

Jobs: the pods of `--days` days of the pod list from `--start-day` (trace days; `topo-sched
trace convert-alibaba` keeps their arrival times and durations), arrivals shifted to 0. Each
job draws (seeded) a BERT size of Crius Table 2 (0.76, 1.3, 2.6, 6.7 B parameters: hidden
1536/2048/2560/4096, 24/24/32/32 layers, seq 512, vocab 30522) and a global batch of Table 2
(128, 256, 512); its N_G is 4, 4, 8 or 16 GPUs by size, times the pod's GPU count, at most
64. Its reference Cell (best over pools at N = N_G: `topo-sched cells`, or bench/e6_reference
from the library's scheduler) gives the reference iteration time T_ref; the job asks for
iterations = round(min(duration, --cap-hours) / T_ref), so at reference speed it runs its
traced (capped) duration. Jobs with no feasible Cell on the fabric are dropped (counted).

Runs (schedule_interval_s 300 in all, max_sim_iterations 50): placement `crius` (the cell
module's scheduler, depth 3, objective normalized); placement `best-fit` with compute_ms =
T_ref and no phases, queue `fifo` (FCFS) and `ff` (smallest first, backfilling). Each run
goes to the end (JCT, queueing = wait before the first start) and again to the last
arrival (throughput = sum of global batch x iterations done / that window).
"""

import collections
import json
import math
import os
import random
import subprocess

from common import (HERE, REPO, SHARED_DATA, Rejected, Timer, fmt, md_table, parse_args, plot_bars, run,
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
    r = subprocess.run([ts, "cells", "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return r.returncode == 0


def references(a, topo, cat, combos):
    """{(size, gb, ng): (T_ref, how)} for every combination, by `topo-sched cells` or bench/e6_reference."""
    out = {}
    if has_cells(a.topo_sched):
        for (size, gb, ng) in combos:
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
            out[(size, gb, ng)] = (gb / best["throughput"] if best else None, "topo-sched cells")
        return out
    # beside the CLI's build (BUILD/src/cli/topo-sched -> BUILD/bench/e6_reference), else build/
    build = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(a.topo_sched))))
    prog = os.path.join(build, "bench", "e6_reference")
    if not os.access(prog, os.X_OK):
        prog = os.path.join(REPO, "build", "bench", "e6_reference")
    if not os.access(prog, os.X_OK):
        raise Rejected("neither `topo-sched cells` nor %s is available" % prog)
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
    for i, k in enumerate(keys):
        thr = float(refs["c%d" % i])
        out[k] = (k[1] / thr if thr > 0 else None, "bench/e6_reference")
    return out


def window_jobs(a, pods_json):
    doc = json.load(open(pods_json))
    lo, hi = a.start_day * 86400, (a.start_day + a.days) * 86400
    pods = sorted((j for j in doc["jobs"] if lo <= j["arrival_s"] < hi), key=lambda j: (j["arrival_s"], j["name"]))
    return pods, lo


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

    fabric, kept = alibaba_nodes.convert(nodes_csv, a.fraction)
    topo = write_json(os.path.join(a.work, "e6-fabric.json"), fabric)
    gpus_total = sum(n["gpus"] for n in fabric["nodes"])
    cat = os.path.join(HERE, "e6-gpus.json")
    pods_json = os.path.join(a.work, "e6-pods.json")
    run(a.topo_sched, ["trace", "convert-alibaba", pods_csv, "--seed", "1", "--compact", "-o", pods_json])
    pods, t0 = window_jobs(a, pods_json)

    rng = random.Random(a.seed)
    drawn = []
    for p in pods:
        size = rng.randrange(len(BERT))
        gb = rng.choice(BATCHES)
        ng = min(64, BERT[size][3] * p["gpus"])
        drawn.append((p, size, gb, ng))
    try:
        refs = references(a, topo, cat, {(s, gb, ng) for _, s, gb, ng in drawn})
    except Rejected as e:
        return skipped(md, "E6 skipped: the cell module is not usable in this build (%s)." % e)
    ref_how = next(iter(refs.values()))[1] if refs else "-"

    cap = a.cap_hours * 3600
    base, dropped, mix = [], 0, collections.Counter()
    for p, size, gb, ng in drawn:
        T = refs[(size, gb, ng)][0]
        if T is None:
            dropped += 1
            continue
        name, h, l, _ = BERT[size]
        iters = max(1, int(round(min(p["duration_s"], cap) / T)))
        mix[name] += 1
        base.append({"name": p["name"], "arrival_s": p["arrival_s"] - t0, "gpus": ng, "iterations": iters,
                     "model": {"hidden": h, "layers": l, "vocab": VOCAB, "seq": SEQ, "global_batch": gb,
                               "micro_batch": 1},
                     "model_name": name, "reference_iteration_s": T})
    if not base:
        return skipped(md, "E6 skipped: no job of the window has a feasible Cell on the fabric.")
    window = max(j["arrival_s"] for j in base)
    window = window if window > 0 else 1.0
    tr_crius = write_json(os.path.join(a.work, "e6-trace-crius.json"),
                          {"format": "tsched.trace.v1", "name": "e6", "jobs": base})
    tr_bf = write_json(os.path.join(a.work, "e6-trace-bestfit.json"),
                       {"format": "tsched.trace.v1", "name": "e6",
                        "jobs": [dict(j, compute_ms=j["reference_iteration_s"] * 1000) for j in base]})
    runs = [("best-fit, fifo", tr_bf, {"placement": "best-fit", "queue": "fifo"}),
            ("best-fit, ff", tr_bf, {"placement": "best-fit", "queue": "ff"}),
            ("crius", tr_crius, {"placement": "crius", "gpus": cat})]
    res = {}
    for label, tr, pol in runs:
        out = {}
        for until in (None, window):
            sc = dict({"format": "tsched.scenario.v1", "name": "e6-" + label.replace(", ", "-"), "seed": 1,
                       "schedule_interval_s": INTERVAL, "max_sim_iterations": MAX_ITERS}, **pol)
            if until is not None:
                sc["until_s"] = until
            scp = write_json(os.path.join(a.work, "e6-scenario.json"), sc)
            try:
                r = simulate(a.topo_sched, topo, tr, scp)
            except Rejected as e:
                return skipped(md, "E6 skipped: placement %s is not available in this build (%s)." % (pol["placement"], e))
            out["until" if until is not None else "end"] = r
        res[label] = out
        r = out["end"]
        print("  %-15s %s: %d/%d jobs done, avg JCT %s s, wait %s s [%s]" %
              (label, r["status"], r["summary"]["jobs_done"], len(base), fmt(r["summary"]["avg_jct_s"]),
               fmt(r["summary"]["avg_wait_s"]), timer), flush=True)

    gb_of = {j["name"]: j["model"]["global_batch"] for j in base}

    def metrics(out):
        end, until = out["end"], out["until"]
        s = end["summary"]
        jobs = end["jobs"]
        seqs_w = sum(gb_of[j["name"]] * j["iterations_done"] for j in until["jobs"])
        seqs = sum(gb_of[j["name"]] * j["iterations_done"] for j in jobs)
        cells = collections.Counter(j["cell"]["pool"].split("/")[0] for j in jobs if j.get("cell"))
        return {"jct": s["avg_jct_s"], "wait": s["avg_wait_s"], "run": s["avg_run_s"], "makespan": s["makespan_s"],
                "done": s["jobs_done"], "status": end["status"], "thr_window": seqs_w / window,
                "thr_run": seqs / s["makespan_s"] if s["makespan_s"] else None,
                "restarts": sum(j["restarts"] for j in jobs) / len(jobs),
                "gpu_util": s["gpu_util"], "gpu_util_alloc": s["gpu_util_alloc"],
                "crius_events": s.get("crius_events"), "final_types": dict(cells)}

    m = {k: metrics(v) for k, v in res.items()}
    c = m["crius"]

    def pct(x, y):
        return "%+.1f %%" % (100 * (x / y - 1)) if x is not None and y else "—"

    def ratio(x, y):
        return "%.2fx" % (x / y) if x is not None and y else "—"

    rows = []
    labels = [k for k, _, _ in runs]
    for key, name, nd in [("jct", "average JCT (s)", 0), ("wait", "average queueing (s)", 0),
                          ("run", "average run time (s)", 0), ("makespan", "makespan (s)", 0),
                          ("thr_window", "throughput over the arrival window (seq/s)", 1),
                          ("thr_run", "throughput over the makespan (seq/s)", 1),
                          ("gpu_util", "GPU utilisation (all GPUs)", 3), ("restarts", "restarts per job", 2)]:
        vals = [fmt(m[l][key], nd) for l in labels]
        if key in ("thr_window", "thr_run"):
            cmp = [ratio(c[key], m["best-fit, fifo"][key]), ratio(c[key], m["best-fit, ff"][key])]
            paper = ["%.2fx" % PAPER["testbed"]["thr"], "%.2fx" % PAPER["sim"]["thr"]]
        elif key in ("jct", "wait"):
            cmp = [pct(c[key], m["best-fit, fifo"][key]), pct(c[key], m["best-fit, ff"][key])]
            paper = ["%+.1f %%" % PAPER["testbed"][key], ("%s %%" % PAPER["sim"]["jct"]) if key == "jct" else ""]
        elif key == "restarts":
            cmp, paper = ["", ""], ["", "2.29 (depth 3)"]
        else:
            cmp = [pct(c[key], m["best-fit, fifo"][key]), pct(c[key], m["best-fit, ff"][key])]
            paper = ["", ""]
        rows.append([name] + vals + cmp + paper)
    table = md_table(["metric"] + labels + ["crius vs best-fit fifo", "crius vs best-fit ff",
                                             "paper, testbed (64 GPUs)", "paper, simulation (1,280 GPUs)"], rows)
    svg = os.path.join(a.out, "e6_crius.svg")
    keys = [("jct", "JCT"), ("wait", "queueing"), ("thr_window", "throughput (window)")]
    plot_bars(svg, "E6: Crius vs best-fit (relative to best-fit fifo)", "metric", "ratio to best-fit fifo",
              [k[1] for k in keys],
              [(l, [(m[l][k] / m["best-fit, fifo"][k]) if m[l][k] is not None and m["best-fit, fifo"][k] else None
                    for k, _ in keys]) for l in labels])
    intro = (
        "Paper: Crius (seed 003) §8.3-8.4: on 32 A40 + 32 A10 GPUs (244 Philly jobs) average JCT -48.9 %%, queueing "
        "-71.0 %%, 1.49x average throughput; on the simulated 1,280-GPU cluster JCT -66.4 %% to -81.3 %% against its "
        "four baselines, 1.54x average throughput, 2.29 restarts per job. Project: the Alibaba v2023 inventory scaled to "
        "%.4g of each pool (%d nodes, %d GPUs: %s; G2, G3 ASSUMED A100-class, bench/experiments/e6-gpus.json); %d pods "
        "of trace days [%g, %g) (%d dropped: no feasible Cell), models %s, N_G 4-64, durations capped at %g h; "
        "reference iteration times from %s. Placement crius vs best-fit with compute_ms = the reference Cell's "
        "iteration time (so best-fit runs every job at its best pool's speed wherever it lands); "
        "schedule_interval_s %d, max_sim_iterations %d; throughput window = the last arrival (%.0f s)."
        % (a.fraction, len(fabric["nodes"]), gpus_total, ", ".join("%s x%d" % kv for kv in kept.items()),
           len(base), a.start_day, a.start_day + a.days, dropped, ", ".join("%s %d" % kv for kv in sorted(mix.items())),
           a.cap_hours, ref_how, INTERVAL, MAX_ITERS, window))
    notes = ("Statuses: %s. Crius: %s scheduling events; final Cells by GPU type %s. "
             "Plot: e6_crius.svg." % (", ".join("%s %s (%d/%d done)" % (l, m[l]["status"], m[l]["done"], len(base))
                                               for l in labels),
                                      c["crius_events"], json.dumps(c["final_types"], sort_keys=True)))
    write_md(md, "E6: Crius on a heterogeneous cluster", intro, table, notes)
    write_json(os.path.join(a.out, "e6_crius.json"),
               {"experiment": "E6", "fraction": a.fraction, "gpus": gpus_total, "jobs": len(base), "dropped": dropped,
                "window_s": window, "reference": ref_how, "results": m, "paper": PAPER})
    print("E6 run time", timer)


if __name__ == "__main__":
    main()

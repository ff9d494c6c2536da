#!/usr/bin/env python3
"""The simulator at cluster scale (issue 26, items 2 and 3): wall time and peak RSS of
`topo-sched simulate` against the number of jobs and the fabric size.

Every run: a generated clos3 fabric (8 GPUs and 8 x 400 G NICs a node, 16 nodes a leaf), a
`topo-sched trace poisson` trace (sizes 8-4,096 GPUs, a ring / halving-doubling /
all-to-all model mix, lognormal durations, one arrival every 8.64 s on average on the
131,072-GPU fabric: 10,000 jobs arrive over one simulated day), and `topo-sched simulate`
with greedy routing, priority crux with 8 levels, exact mode (max_sim_iterations 0, the
default), no time series, under `/usr/bin/time -v` and `timeout`, niced.

Two series:
  jobs   - the 131,072-GPU fabric, jobs in --jobs-list (default 100,300,1000,3000,10000); the
           series stops growing after the first run that does not finish within --timeout;
  fabric - --fabric-jobs jobs (default 100) on 512, 2,048, 8,192, 32,768 and 131,072 GPUs,
           sizes capped at a quarter of the fabric and the arrival rate scaled so that the
           offered load (GPU-seconds asked per GPU-second) is that of the 131,072-GPU runs.
and, with --member N, one run of N jobs on the 131,072-GPU fabric with --links member
(`--series none --member N` for that run alone). Each series writes its own runs-SERIES.csv
in --out, so series can run in parallel processes; a run already recorded there is not
repeated, and --report-only rebuilds the outputs from those files.

Output in --out (default bench/out-sim-scale): sim_scale.csv (one row per run), sim_scale.svg
(user CPU time against events, log-log: CPU time, as the machine is shared) and sim_scale.md
(the table and the exponents of wall and CPU time against events and against rate updates,
least squares on log-log over the runs that finished).
usage: bench/sim_scale.py --topo-sched build-bench/src/cli/topo-sched [--timeout 300]
                          [--jobs-list 100,300,...] [--fabrics 512,...] [--fabric-jobs N]
                          [--member N] [--series jobs,fabric] [--out DIR]
"""

import argparse
import csv
import json
import math
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "experiments"))
import plot_svg  # noqa: E402

FULL_GPUS = 131072
# (pods, leaves_per_pod, spines_per_pod, cores) per fabric size, 16 nodes of 8 GPUs a leaf
SHAPES = {
    512: (2, 2, 2, 2),
    2048: (4, 4, 4, 4),
    8192: (8, 8, 8, 8),
    32768: (8, 32, 16, 32),
    131072: (16, 64, 16, 64),
}
SIZES = [(8, 30), (16, 20), (32, 15), (64, 10), (128, 8), (256, 6), (512, 5), (1024, 3), (2048, 2), (4096, 1)]
MEAN_IA_FULL = 86400.0 / 10000  # 10,000 jobs a simulated day on the full fabric
DURATION = "lognormal:7.0,1.0"  # median 18 min, mean 30 min
MIX = {
    "format": "tsched.model-mix.v1",
    "models": [
        {"name": "ring", "weight": 2, "compute_ms": 1500, "overlap": 0.3, "tp": 8, "pp": 1,
         "phases": [{"pattern": "dp-ring", "gbits": 20.0}]},
        {"name": "hd", "weight": 1, "compute_ms": 1000, "overlap": 0.3, "tp": 8, "pp": 1,
         "phases": [{"pattern": "dp-hd", "gbits": 20.0}]},
        {"name": "a2a", "weight": 1, "compute_ms": 2000, "overlap": 0.2, "tp": 8, "pp": 8,
         "phases": [{"pattern": "alltoall", "gbits": 8.0}]},
    ],
}
FIELDS = ["series", "gpus", "jobs", "links", "status", "wall_s", "sim_wall_s", "user_s", "sys_s",
          "max_rss_mib", "events", "events_per_s", "events_per_cpu_s", "rate_updates", "components", "component_flows_mean",
          "component_flows_max", "jobs_done", "makespan_s", "progress", "loadavg"]

RUN_FIELDS = [k for k in FIELDS if k != "events_per_cpu_s"]  # derived when the table is made


def sizes_for(gpus):
    return [(g, w) for g, w in SIZES if g <= min(4096, gpus // 4)]


def mean_size(sizes):
    return sum(g * w for g, w in sizes) / sum(w for _, w in sizes)


def topology(out, gpus):
    pods, lpp, spp, cores = SHAPES[gpus]
    path = os.path.join(out, "clos3-%d.json" % gpus)
    doc = {"format": "tsched.topology.v1", "name": "clos3-%d" % gpus,
           "generate": {"kind": "clos3", "pods": pods, "leaves_per_pod": lpp, "spines_per_pod": spp,
                        "cores": cores, "nodes_per_leaf": 16, "gpus_per_node": 8, "nic_gbps": 400}}
    with open(path, "w") as f:
        json.dump(doc, f)
    return path


def trace(ts, out, tag, gpus, jobs, mix):
    sizes = sizes_for(gpus)
    # the same offered load on every fabric: rate x mean size / GPUs constant
    ia = MEAN_IA_FULL * (FULL_GPUS / gpus) * (mean_size(sizes) / mean_size(SIZES))
    path = os.path.join(out, "trace-%s.json" % tag)
    cmd = [ts, "trace", "poisson", "--jobs", str(jobs), "--mean-interarrival-s", "%.6g" % ia,
           "--sizes", ",".join("%d:%d" % s for s in sizes), "--duration-dist", DURATION,
           "--model-mix", mix, "--seed", "1", "--compact", "-o", path]
    subprocess.run(cmd, check=True)
    return path, cmd


def loadavg():
    with open("/proc/loadavg") as f:
        return " ".join(f.read().split()[:3])


def parse_time(path):
    """/usr/bin/time -v: elapsed (s), user, sys, max RSS (MiB)."""
    r = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().rpartition(": ")
            if k.startswith("Elapsed (wall clock)"):
                parts = [float(p) for p in v.split(":")]
                r["wall_s"] = sum(p * 60 ** i for i, p in enumerate(reversed(parts)))
            elif k == "User time (seconds)":
                r["user_s"] = float(v)
            elif k == "System time (seconds)":
                r["sys_s"] = float(v)
            elif k == "Maximum resident set size (kbytes)":
                r["max_rss_mib"] = round(int(v) / 1024, 1)
    return r


def simulate(ts, out, tag, topo, tr, timeout, links="trunk"):
    res = os.path.join(out, "result-%s.json" % tag)
    tfile = os.path.join(out, "time-%s.txt" % tag)
    efile = os.path.join(out, "stderr-%s.txt" % tag)
    if os.path.exists(res):
        os.unlink(res)
    cmd = [ts, "simulate", "-t", topo, "-w", tr, "--routing", "greedy", "--priority", "crux", "--levels", "8",
           "--links", links, "--progress", "--compact", "-o", res]
    full = ["nice", "-n", "10", "/usr/bin/time", "-v", "-o", tfile, "timeout", str(timeout)] + cmd
    la = loadavg()
    with open(efile, "w") as err:
        rc = subprocess.run(full, stderr=err).returncode
    row = {"links": links, "loadavg": la}
    row.update(parse_time(tfile))
    prog = [l for l in open(efile).read().splitlines() if l.startswith("simulate:")]
    row["progress"] = prog[-1][len("simulate:"):].strip() if prog else ""
    if rc == 0 and os.path.exists(res):
        with open(res) as f:
            doc = json.load(f)
        sm = doc["summary"]
        row["status"] = "done"
        row["sim_wall_s"] = round(doc.get("wall_ms", 0) / 1e3, 3)
        for k in ("events", "rate_updates", "components", "component_flows_max", "jobs_done"):
            row[k] = sm[k]
        row["component_flows_mean"] = round(sm["component_flows_mean"], 2)
        row["makespan_s"] = round(sm["makespan_s"], 1)
        row["events_per_s"] = round(sm["events"] / row["sim_wall_s"]) if row["sim_wall_s"] else ""
        os.unlink(res)  # megabytes of per-job detail: the summary is in the CSV
    else:
        row["status"] = "timeout %d s" % timeout if rc == 124 else "exit %d" % rc
    return row, cmd


def load_runs(out):
    """Every run recorded in out/runs-SERIES.csv (one file per series, so that the series can
    run in parallel processes), numbers parsed back."""
    rows = []
    for name in ("jobs", "fabric", "member"):
        path = os.path.join(out, "runs-%s.csv" % name)
        if not os.path.exists(path):
            continue
        with open(path) as f:
            for r in csv.DictReader(f):
                for k in ("gpus", "jobs", "events", "components", "component_flows_max", "jobs_done"):
                    r[k] = int(r[k]) if r.get(k) else r.get(k)
                for k in ("wall_s", "user_s"):
                    r[k] = float(r[k]) if r.get(k) else r.get(k)
                rows.append(r)
    return rows


def save_run(out, row):
    path = os.path.join(out, "runs-%s.csv" % row["series"])
    new = not os.path.exists(path)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RUN_FIELDS)
        if new:
            w.writeheader()
        w.writerow({k: row.get(k, "") for k in RUN_FIELDS})


def fit(rows, key="wall_s", by="events"):
    """Least squares of log(key) (wall or user CPU time) on log(by) (events, or rate
    updates: the flows whose rate was recomputed) over the finished runs: (exponent, n)."""
    pts = [(math.log(float(r[by])), math.log(r[key])) for r in rows
           if r.get("status") == "done" and r.get(by) and r.get(key)]
    if len(pts) < 2:
        return None, len(pts)
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    sxx = sum((p[0] - mx) ** 2 for p in pts)
    if sxx == 0:
        return None, len(pts)
    return sum((p[0] - mx) * (p[1] - my) for p in pts) / sxx, len(pts)


def write_outputs(out, rows):
    order = {"jobs": 0, "fabric": 1, "member": 2}
    rows = sorted(rows, key=lambda r: (order.get(r["series"], 3), r["gpus"], r["jobs"]))
    for r in rows:  # the machine is shared: events per CPU second is the steadier rate
        if r.get("events") and r.get("user_s"):
            r["events_per_cpu_s"] = round(r["events"] / (r["user_s"] + float(r.get("sys_s") or 0)))
    with open(os.path.join(out, "sim_scale.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow({k: r.get(k, "") for k in FIELDS})
    series = []
    for name in ("jobs", "fabric", "member"):
        pts = [(round(math.log10(r["events"]), 4), r["user_s"]) for r in rows
               if r["series"] == name and r.get("status") == "done" and r.get("events")]
        if pts:
            series.append(({"jobs": "131k GPUs, N jobs", "fabric": "fixed N, 512-131k GPUs",
                            "member": "member links"}[name], sorted(pts)))
    plot_svg.line_chart(os.path.join(out, "sim_scale.svg"), "topo-sched simulate: CPU time against events",
                        "log10(events)", "user CPU time (s, log)", series, logy=True)
    lines = ["| series | GPUs | jobs | links | status | wall (s) | sim wall (s) | user (s) | max RSS (MiB) "
             "| events | events/s (wall) | events/CPU s | components | flows/component mean / max | jobs done | load avg |",
             "|---|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|"]
    for r in rows:
        g = lambda k: r.get(k, "")  # noqa: E731
        lines.append("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s |" % (
            g("series"), g("gpus"), g("jobs"), g("links"), g("status") + (" (" + g("progress") + ")" if
                                                                         g("status") != "done" and g("progress") else ""),
            g("wall_s"), g("sim_wall_s"), g("user_s"), g("max_rss_mib"), g("events"), g("events_per_s"),
            g("events_per_cpu_s"), g("components"), g("component_flows_mean"), g("component_flows_max"), g("jobs_done"), g("loadavg")))
    f3 = lambda e: "n/a" if e is None else "%.3f" % e  # noqa: E731
    lines.append("")
    for by in ("events", "rate_updates"):
        for key, what in (("wall_s", "wall time"), ("user_s", "user CPU time")):
            uniq = {(r["gpus"], r["jobs"], r["links"]): r for r in rows if r["series"] in ("jobs", "fabric")}
            fits = [fit(list(uniq.values()), key, by)] + [fit([r for r in rows if r["series"] == n], key, by)
                                                          for n in ("jobs", "fabric")]
            lines.append("Exponent of %s against %s (least squares on log-log, finished runs): all %s (%d runs), "
                         "jobs series %s (%d), fabric series %s (%d)." %
                         ((what, by) + sum(((f3(e), n) for e, n in fits), ())))
    lines += ["", "Commands (first of each kind):", ""]
    for name in ("jobs", "fabric", "member"):
        cpath = os.path.join(out, "commands-%s.txt" % name)
        if os.path.exists(cpath):
            lines += ["    " + c for c in open(cpath).read().splitlines()]
    with open(os.path.join(out, "sim_scale.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topo-sched", default=os.path.join(HERE, "..", "build-bench", "src", "cli", "topo-sched"))
    ap.add_argument("--out", default=os.path.join(HERE, "out-sim-scale"))
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--jobs-list", default="100,300,1000,3000,10000")
    ap.add_argument("--fabrics", default="512,2048,8192,32768,131072")
    ap.add_argument("--fabric-jobs", type=int, default=100)
    ap.add_argument("--member", type=int, default=0, help="jobs of the member-links run (0: none)")
    ap.add_argument("--series", default="jobs,fabric")
    ap.add_argument("--report-only", action="store_true", help="only rebuild the CSV, SVG and table from the runs")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    ts = os.path.abspath(a.topo_sched)
    mix = os.path.join(a.out, "mix.json")
    with open(mix, "w") as f:
        json.dump(MIX, f, indent=1)
    rows, done = load_runs(a.out), {}
    for r in rows:
        done[(r["series"], r["gpus"], r["jobs"], r["links"])] = r
    if a.report_only:
        write_outputs(a.out, rows)
        return
    plan = []
    series = a.series.split(",")
    if "jobs" in series:
        plan += [("jobs", FULL_GPUS, int(n), "trunk") for n in a.jobs_list.split(",")]
    if "fabric" in series:
        plan += [("fabric", int(g), a.fabric_jobs, "trunk") for g in a.fabrics.split(",")]
    if a.member:
        plan.append(("member", FULL_GPUS, a.member, "member"))
    stopped = set()
    for name, gpus, jobs, links in plan:
        key = (name, gpus, jobs, links)
        if key in done:
            if done[key].get("status") != "done":
                stopped.add(name)
            continue
        same = [r for r in load_runs(a.out) if (r["gpus"], r["jobs"], r["links"]) == (gpus, jobs, links)]
        if same:  # the same fabric, trace and flags as a run of the other series: the same run
            row = dict(same[0], series=name)
            rows.append(row)
            save_run(a.out, row)
            if row.get("status") != "done":
                stopped.add(name)
            continue
        if name in stopped:
            print("%s: %d jobs on %d GPUs skipped (a smaller run did not finish)" % (name, jobs, gpus), flush=True)
            continue
        topo = topology(a.out, gpus)
        tag = "%s-%d-%d-%s" % (name, gpus, jobs, links)
        tr, tcmd = trace(ts, a.out, tag, gpus, jobs, mix)
        row, scmd = simulate(ts, a.out, tag, topo, tr, a.timeout, links)
        row.update({"series": name, "gpus": gpus, "jobs": jobs})
        cpath = os.path.join(a.out, "commands-%s.txt" % name)
        if not os.path.exists(cpath):  # the first run's commands, for the table
            with open(cpath, "w") as f:
                f.write((" ".join(tcmd) + "\n" + " ".join(scmd) + "\n").replace(os.getcwd() + "/", ""))
        rows.append(row)
        save_run(a.out, row)
        print("%s: %d jobs, %d GPUs, %s links: %s, wall %s s, RSS %s MiB, events %s" % (
            name, jobs, gpus, links, row.get("status"), row.get("wall_s"), row.get("max_rss_mib"),
            row.get("events", "")), flush=True)
        if row.get("status") != "done":
            stopped.add(name)
        os.unlink(tr)
    write_outputs(a.out, load_runs(a.out))


if __name__ == "__main__":
    main()

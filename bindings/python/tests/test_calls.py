# topo_sched: every module call exists and answers as the topo-sched command does for the
# same documents and options (both parsed; timings left out with no_timing).
import json
import os
import subprocess
import tempfile
import unittest

import _common
from _common import data, read, run_cli
import topo_sched as ts

CALLS = ("place", "flows", "route", "prioritize", "kcut", "vclos", "cells", "crius_schedule", "simulate")


class CallsExistTest(unittest.TestCase):
    def test_every_call_exists(self):
        for name in CALLS:
            self.assertTrue(callable(getattr(ts, name, None)), name)
            self.assertIn(name, ts.__all__)


class PlaceTest(unittest.TestCase):
    def setUp(self):
        self.topo = ts.Topology.load(data("cli", "cluster.json"))
        self.job = ts.Job.load(data("cli", "job.json"))

    def tearDown(self):
        self.topo.close()
        self.job.close()

    def check_placement(self, pl, topo):
        nodes = {n["name"]: n for n in topo.to_json()["nodes"]}
        state = topo.to_json().get("state", {})
        down, busy = set(state.get("down", [])), state.get("free_gpus", {})
        self.assertEqual(pl["format"], "tsched.placement.v1")
        n = pl["rows"] * pl["cols"]
        self.assertEqual(len(pl["assignment"]), n)
        used = [a["node"] for a in pl["assignment"]]
        for node in used:
            self.assertIn(node, nodes)
            self.assertNotIn(node, down)
            self.assertNotIn(node, busy)  # whole free nodes only
        self.assertEqual(len(set(used)), n)
        self.assertEqual(sorted(a["rank"] for a in pl["assignment"]), list(range(n)))
        return used

    def test_placement_is_valid_and_the_cli_one(self):
        pl = ts.place(self.topo, self.job, no_timing=True)
        self.check_placement(pl, self.topo)
        self.assertNotIn("solve_ms", pl)
        self.assertEqual(pl, run_cli("place", "-t", data("cli", "cluster.json"), "-j", data("cli", "job.json"),
                                     "--no-timing"))
        self.assertIn("solve_ms", ts.place(self.topo, self.job))

    def test_options_are_the_long_options(self):
        for opts, args in (({"algo": "best-fit"}, ["--algo", "best-fit"]),
                           ({"algo": "random-fit", "seed": 7}, ["--algo", "random-fit", "--seed", "7"]),
                           ({"alpha": 0.9, "time_limit_ms": 5000}, ["--alpha", "0.9", "--time-limit-ms", "5000"])):
            pl = ts.place(self.topo, read("cli", "job.json"), no_timing=True, **opts)
            self.check_placement(pl, self.topo)
            self.assertEqual(pl, run_cli("place", "-t", data("cli", "cluster.json"), "-j", data("cli", "job.json"),
                                         "--no-timing", *args), opts)

    def test_state_changes_are_seen(self):
        first = self.check_placement(ts.place(self.topo, self.job, no_timing=True), self.topo)
        for node in first:
            self.topo.set_free_gpus(node, 0)
        second = self.check_placement(ts.place(self.topo, self.job, no_timing=True), self.topo)
        self.assertFalse(set(first) & set(second))

    def test_large_seeds_are_the_cli_ones(self):
        # seeds above 2^63 - 1 do not fit a JSON integer of the service: sent as text
        for seed in (2 ** 53 + 1, 2 ** 63, 2 ** 64 - 1):
            pl = ts.place(self.topo, self.job, algo="random-fit", seed=seed, no_timing=True)
            self.assertEqual(pl, run_cli("place", "-t", data("cli", "cluster.json"), "-j", data("cli", "job.json"),
                                         "--no-timing", "--algo", "random-fit", "--seed", str(seed)), seed)

    def test_bad_numbers_and_duplicate_keys(self):
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.place(self.topo, self.job, alpha=float("nan"))
        self.assertIn("options.alpha", str(cm.exception))
        self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_RANGE"])
        # documents as text are read as the library reads them: the CLI refuses these too
        for text in ('{"format":"tsched.job.v1","gpus":8,"gpus":16,"tp":8,"pp":1}',
                     '{"format":"tsched.job.v1","gpus":8,"tp":8,"pp":1,"alpha":1e999}',
                     '{"format":"tsched.job.v1","gpus":8,"tp":8,"pp":1,"alpha":NaN}'):
            with self.assertRaises(ts.TopoSchedError) as cm:
                ts.place(self.topo, text)
            self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_PARSE"], text)
            with self.assertRaises(ts.TopoSchedError):
                ts.Job.from_json(text)
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.place(self.topo, {"format": "tsched.job.v1", "gpus": 8, "tp": 8, "pp": 1, "alpha": float("inf")})
        self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_RANGE"])

    def test_duplicate_option_spellings(self):
        # issue 21, item 6: one option under two spellings is an error naming both, on every call
        for _ in range(20):
            with self.assertRaises(ts.TopoSchedError) as cm:
                ts.place(self.topo, self.job, algo="random-fit", **{"time_limit_ms": 100, "time-limit-ms": 200})
            self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_INVALID"])
            self.assertIn("options.time-limit-ms: given twice, as time-limit-ms and time_limit_ms", str(cm.exception))
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.place(self.topo, self.job, no_timing=None, **{"no-timing": True})
        self.assertIn("options.no-timing: given twice", str(cm.exception))
        # one spelling alone is the CLI option
        pl = ts.place(self.topo, self.job, algo="random-fit", no_timing=True, **{"time-limit-ms": 100, "seed": 5})
        self.assertEqual(pl, run_cli("place", "-t", data("cli", "cluster.json"), "-j", data("cli", "job.json"),
                                     "--no-timing", "--algo", "random-fit", "--seed", "5", "--time-limit-ms", "100"))

    def test_errors_carry_status_and_exit(self):
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.place(self.topo, self.job, algo="nosuch")
        self.assertEqual(cm.exception.exit, 2)
        self.assertIn("nosuch", str(cm.exception))
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.place(self.topo, read("cli", "job-huge.json"))
        self.assertEqual(cm.exception.exit, 1)
        self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_INFEASIBLE"])
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.place(self.topo, {"format": "tsched.job.v1", "gpus": 64, "tp": "4", "pp": 2})
        self.assertEqual(cm.exception.exit, 2)
        self.assertIn("tp", str(cm.exception))
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.place(self.topo, "{not json")
        self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_PARSE"])
        self.topo.close()
        with self.assertRaises(ValueError):
            ts.place(self.topo, self.job)


class ModuleCallsTest(unittest.TestCase):
    """One call per command, compared with the command's output."""

    def test_flows(self):
        with ts.Topology.load(data("cli", "cluster.json")) as topo:
            pl = ts.place(topo, read("cli", "job.json"), no_timing=True)
            got = ts.flows(topo, pl, pattern="dp-ring", gbits=10)
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
                json.dump(pl, f)
            try:
                want = run_cli("flows", "-t", data("cli", "cluster.json"), "-p", f.name, "--pattern", "dp-ring",
                               "--gbits", "10")
            finally:
                os.unlink(f.name)
        self.assertEqual(got["format"], "tsched.flows.v1")
        self.assertTrue(got["flows"])
        self.assertEqual(got, want)

    def test_route(self):
        with ts.Topology.load(data("routing", "fabric.json")) as topo:
            for algo in ("greedy", "ecmp"):
                got = ts.route(topo, read("routing", "flows.json"), algo=algo, no_timing=True)
                self.assertEqual(got["format"], "tsched.routes.v1")
                self.assertEqual(got, run_cli("route", "-t", data("routing", "fabric.json"), "-f",
                                              data("routing", "flows.json"), "--algo", algo, "--no-timing"))

    def test_prioritize(self):
        with ts.Topology.load(data("priority", "crux-topo.json")) as topo:
            got = ts.prioritize(topo, read("priority", "crux-jobset.json"), levels=4)
        self.assertEqual(got["format"], "tsched.priorities.v1")
        self.assertEqual(got, run_cli("prioritize", "-t", data("priority", "crux-topo.json"), "-s",
                                      data("priority", "crux-jobset.json"), "--levels", "4"))

    def test_kcut(self):
        got = ts.kcut(json.loads(read("priority", "dag-small.json")), levels=2, seed=3)
        self.assertEqual(got["format"], "tsched.levels.v1")
        self.assertEqual(got, run_cli("kcut", "-d", data("priority", "dag-small.json"), "--levels", "2",
                                      "--seed", "3"))
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.kcut(read("priority", "dag-cycle.json"), levels=2)
        self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_CYCLE"])

    def test_vclos(self):
        with ts.Topology.load(data("vclos-leaf-spine.json")) as topo:
            got = ts.vclos(topo, read("vclos-requests.json"), no_timing=True)
        self.assertEqual(got["format"], "tsched.vclos.v1")
        self.assertEqual(got, run_cli("vclos", "-t", data("vclos-leaf-spine.json"), "-r",
                                      data("vclos-requests.json"), "--no-timing"))

    def test_cells(self):
        with ts.Topology.load(data("cell", "cli", "hetero.json")) as topo:
            got = ts.cells(topo, read("cell", "cli", "job-small.json"), catalog=read("cell", "cli", "gpus.json"),
                           no_timing=True)
        self.assertEqual(got["format"], "tsched.cells.v1")
        self.assertEqual(got, run_cli("cells", "-t", data("cell", "cli", "hetero.json"), "-j",
                                      data("cell", "cli", "job-small.json"), "-c", data("cell", "cli", "gpus.json"),
                                      "--no-timing"))

    def test_crius_schedule(self):
        with ts.Topology.load(data("cell", "cli", "hetero.json")) as topo:
            got = ts.crius_schedule(topo, read("cell", "cli", "queue.json"), catalog=read("cell", "cli", "gpus.json"),
                                    no_timing=True)
        self.assertEqual(got["format"], "tsched.crius-schedule.v1")
        self.assertEqual(got, run_cli("crius-schedule", "-t", data("cell", "cli", "hetero.json"), "-q",
                                      data("cell", "cli", "queue.json"), "-c", data("cell", "cli", "gpus.json"),
                                      "--no-timing"))

    def test_simulate(self):
        with ts.Topology.load(data("sim", "fabric.json")) as topo:
            got = ts.simulate(topo, read("sim", "trace.json"), scenario=read("sim", "scenario.json"), no_timing=True)
        self.assertEqual(got["format"], "tsched.simresult.v1")
        self.assertEqual(got, run_cli("simulate", "-t", data("sim", "fabric.json"), "-w", data("sim", "trace.json"),
                                      "-s", data("sim", "scenario.json"), "--no-timing"))


def cli_bytes(*args):
    """The topo-sched command's standard output, as bytes."""
    cli = _common.find_cli()
    if not cli:
        raise unittest.SkipTest("no topo-sched command (set TOPO_SCHED_CLI)")
    proc = subprocess.run([cli] + list(args), capture_output=True)
    if proc.returncode != 0:
        raise AssertionError("topo-sched %s failed: %s" % (" ".join(args), proc.stderr))
    return proc.stdout


def golden(name):
    with open(data("trace", "golden", name + ".json"), "rb") as f:
        return f.read()


class TraceTest(unittest.TestCase):
    """The trace calls write the bytes of the original command (tests/data/trace/golden) and
    of today's topo-sched trace, for the same inputs and options."""

    def same(self, text, name, *args):
        out = text.encode("utf-8") + b"\n"  # the command ends its output with a newline
        self.assertEqual(out, golden(name), name)
        self.assertEqual(out, cli_bytes("trace", *args), name)

    def test_poisson(self):
        self.same(ts.trace_poisson(jobs=50, mean_interarrival_s=5, sizes="1:1,8:3,64:0.5", duration_dist="exp:3600"),
                  "poisson-exp", "poisson", "--jobs", "50", "--mean-interarrival-s", "5", "--sizes", "1:1,8:3,64:0.5",
                  "--duration-dist", "exp:3600")
        mix = data("trace", "mix.json")
        self.same(ts.trace_poisson(jobs=60, mean_interarrival_s=30, sizes="1:1,2:1,4:1,8:4,24:1", duration_dist="exp:100",
                                   model_mix=read("trace", "mix.json"), seed=3),
                  "poisson-mix", "poisson", "--jobs", "60", "--mean-interarrival-s", "30", "--sizes",
                  "1:1,2:1,4:1,8:4,24:1", "--duration-dist", "exp:100", "--model-mix", mix, "--seed", "3")
        # the mix as a dict, the largest seed as an int, a float option
        self.same(ts.trace_poisson(jobs=60, mean_interarrival_s=2.0, sizes="6:1,12:2", duration_dist="lognormal:1,0.5",
                                   model_mix=json.loads(read("trace", "golden", "mix2.json")), gpus_per_node=6,
                                   seed=99, compact=True),
                  "poisson-mix2", "poisson", "--jobs", "60", "--mean-interarrival-s", "2", "--sizes", "6:1,12:2",
                  "--duration-dist", "lognormal:1,0.5", "--model-mix", data("trace", "golden", "mix2.json"),
                  "--gpus-per-node", "6", "--seed", "99", "--compact")
        self.same(ts.trace_poisson(jobs=40, mean_interarrival_s=120, sizes="8:1,16:1,32:2",
                                   duration_dist="lognormal:6,1.5", seed=2**64 - 1),
                  "poisson-lognormal", "poisson", "--jobs", "40", "--mean-interarrival-s", "120", "--sizes",
                  "8:1,16:1,32:2", "--duration-dist", "lognormal:6,1.5", "--seed", "18446744073709551615")

    def test_convert_alibaba(self):
        pods = data("trace", "pods.csv")
        with open(pods, "rb") as f:
            csv = f.read()
        self.same(ts.trace_convert_alibaba(csv, name=pods, scale_gpus=8, gbits=2.5, compute_ms=333.3, compact=True),
                  "alibaba-opts", "convert-alibaba", pods, "--scale-gpus", "8", "--gbits", "2.5", "--compute-ms",
                  "333.3", "--compact")
        self.same(ts.trace_convert_alibaba(csv.decode(), name=pods, model_mix=read("trace", "mix.json"), seed=11,
                                           gpus_per_node=4),
                  "alibaba-mix", "convert-alibaba", pods, "--model-mix", data("trace", "mix.json"), "--seed", "11",
                  "--gpus-per-node", "4")

    def test_convert_dcn(self):
        d = data("trace", "dcn", "ring_size_2")
        files = {n: read("trace", "dcn", "ring_size_2", n) for n in os.listdir(d)}
        self.same(ts.trace_convert_dcn(d, files), "dcn-default", "convert-dcn", d)
        self.same(ts.trace_convert_dcn(d), "dcn-default", "convert-dcn", d)
        self.same(ts.trace_convert_dcn(d + "/", files, seed=4, compute_ms=1238.769231, iterations=3,
                                       arrival_window_s=100, compact=True),
                  "dcn-opts", "convert-dcn", d + "/", "--seed", "4", "--compute-ms", "1238.769231", "--iterations",
                  "3", "--arrival-window-s", "100", "--compact")

    def test_errors_are_the_commands(self):
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.trace_poisson(jobs=3, mean_interarrival_s=1, sizes="8:-1", duration_dist="fixed:1")
        self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_RANGE"])
        code, err = _common.cli_error("trace", "poisson", "--jobs", "3", "--mean-interarrival-s", "1", "--sizes", "8:-1",
                                      "--duration-dist", "fixed:1")
        self.assertEqual(code, 2)
        self.assertIn(str(cm.exception), err)
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.trace_convert_dcn("x/y", {"job_0-A.txt": "#src dst src_tor dst_tor start_time flow_size compute_time "
                                         "stage_index\n96 97 0 1 0 1 1 0\n"})
        self.assertIn("x/y/job_0-A.txt:2: dst_tor: 1, but server vertex 97 sits under ToR 0", str(cm.exception))
        with self.assertRaises(ts.TopoSchedError):
            ts.trace_poisson(jobs=3, bogus=1)


if __name__ == "__main__":
    unittest.main()

# The package's Python surface (issue 25, item 4): an exception class per status family,
# TypeError for a keyword a call does not take, type hints on every public call, py.typed,
# and TypedDicts that describe the results as the library writes them.
import inspect
import os
import pickle
import typing
import unittest

from _common import data, read  # noqa: F401  (sets sys.path first)
import topo_sched as ts

FABRIC = {"format": "tsched.topology.v1", "generate": {"kind": "leaf_spine", "leaves": 2, "spines": 2,
                                                       "nodes_per_leaf": 4, "gpus_per_node": 8, "nic_gbps": 400}}
JOB = {"format": "tsched.job.v1", "gpus": 32, "tp": 8, "pp": 2}
FAMILIES = {
    ts.InvalidInputError: {"TSCHED_E_INVALID", "TSCHED_E_PARSE", "TSCHED_E_FORMAT", "TSCHED_E_TYPE", "TSCHED_E_RANGE",
                           "TSCHED_E_DUPLICATE", "TSCHED_E_CYCLE", "TSCHED_E_STATE", "TSCHED_E_MISMATCH"},
    ts.NotFoundError: {"TSCHED_E_NOT_FOUND"},
    ts.InfeasibleError: {"TSCHED_E_INFEASIBLE", "TSCHED_E_NO_PATH"},
    ts.TimeLimitError: {"TSCHED_E_TIMEOUT"},
    ts.ResourceError: {"TSCHED_E_NOMEM", "TSCHED_E_TOO_LARGE", "TSCHED_E_BUFFER"},
    ts.FileAccessError: {"TSCHED_E_IO"},
    ts.SolverError: {"TSCHED_E_SOLVER"},
    ts.InternalError: {"TSCHED_E_INTERNAL"},
}


class ErrorFamiliesTest(unittest.TestCase):
    def test_every_status_has_one_family(self):
        seen = set()
        for cls, names in FAMILIES.items():
            self.assertTrue(issubclass(cls, ts.TopoSchedError), cls)
            for name in names:
                self.assertIn(name, ts.STATUS, name)
                self.assertIs(ts.error_class(ts.STATUS[name]), cls, name)
            seen |= names
        # every status the library defines (but TSCHED_OK) is in exactly one family
        self.assertEqual(seen, set(ts.STATUS) - {"TSCHED_OK"})
        self.assertIs(ts.error_class(250), ts.TopoSchedError)

    def test_raised_errors_are_the_family_with_status_and_name(self):
        topo = ts.Topology.from_json(FABRIC)
        self.addCleanup(topo.close)
        cases = [
            (lambda: ts.place(topo, JOB, algo="nosuch"), ts.InvalidInputError, "TSCHED_E_FORMAT", 2),
            (lambda: ts.place(topo, dict(JOB, gpus=8000)), ts.InfeasibleError, "TSCHED_E_INFEASIBLE", 1),
            (lambda: ts.place(topo, "{not json"), ts.InvalidInputError, "TSCHED_E_PARSE", None),
            (lambda: topo.set_free_gpus("nosuch", 1), ts.NotFoundError, "TSCHED_E_NOT_FOUND", None),
            (lambda: ts.Topology.load(os.path.join(data(), "no-such-file.json")), ts.FileAccessError, "TSCHED_E_IO",
             None),
            (lambda: ts.kcut(read("priority", "dag-cycle.json"), levels=2), ts.InvalidInputError, "TSCHED_E_CYCLE", 2),
        ]
        for call, cls, name, exit_status in cases:
            with self.assertRaises(ts.TopoSchedError) as cm:
                call()
            err = cm.exception
            self.assertIs(type(err), cls, repr(err))
            self.assertEqual(err.status, ts.STATUS[name])
            self.assertEqual(err.status_name, name)
            if exit_status is not None:
                self.assertEqual(err.exit, exit_status)
            self.assertTrue(repr(err).startswith(cls.__name__ + "("), repr(err))
            back = pickle.loads(pickle.dumps(err))
            self.assertIs(type(back), cls)
            self.assertEqual((back.status, back.message, back.exit), (err.status, err.message, err.exit))


class UnknownKeywordTest(unittest.TestCase):
    """A keyword a call does not take is a TypeError naming it, as Python functions do."""

    def test_every_call(self):
        topo = ts.Topology.from_json(FABRIC)
        self.addCleanup(topo.close)
        pl = ts.place(topo, JOB, no_timing=True)
        fl = ts.flows(topo, pl, pattern="dp-ring", gbits=1)
        calls = {
            "place": lambda **kw: ts.place(topo, JOB, **kw),
            "flows": lambda **kw: ts.flows(topo, pl, pattern="dp-ring", gbits=1, **kw),
            "route": lambda **kw: ts.route(topo, fl, **kw),
            "prioritize": lambda **kw: ts.prioritize(topo, read("priority", "crux-jobset.json"), levels=4, **kw),
            "kcut": lambda **kw: ts.kcut(read("priority", "dag-small.json"), levels=2, **kw),
            "vclos": lambda **kw: ts.vclos(topo, read("vclos-requests.json"), **kw),
            "cells": lambda **kw: ts.cells(topo, JOB, **kw),
            "crius_schedule": lambda **kw: ts.crius_schedule(topo, read("cell", "cli", "queue.json"), **kw),
            "simulate": lambda **kw: ts.simulate(topo, read("sim", "trace.json"), **kw),
            "Topology.import_slurm": lambda **kw: ts.Topology.import_slurm("SwitchName=s0 Nodes=n[0-1]\n", **kw),
            "Topology.import_slurm_yaml": lambda **kw: ts.Topology.import_slurm_yaml("x: 1\n", **kw),
            "Topology.import_k8s_nodes": lambda **kw: ts.Topology.import_k8s_nodes({"items": []}, **kw),
            "Topology.export": lambda **kw: topo.export("slurm-conf", **kw),
            "trace_poisson": lambda **kw: ts.trace_poisson(jobs=2, duration_dist="fixed:1", **kw),
            "trace_convert_alibaba": lambda **kw: ts.trace_convert_alibaba("", **kw),
            "trace_convert_dcn": lambda **kw: ts.trace_convert_dcn("d", {}, **kw),
        }
        for call, fn in calls.items():
            for key in ("bogus", "time_limit_msec", "no_such_option"):
                with self.assertRaises(TypeError, msg=call) as cm:
                    fn(**{key: 1})
                err = cm.exception
                self.assertTrue(str(err).startswith("%s() got an unexpected keyword argument %r" % (call, key)),
                                "%s: %s" % (call, err))
                # still a TopoSchedError for code written against earlier releases
                self.assertIsInstance(err, ts.InvalidInputError)
                self.assertIsInstance(err, ts.UnknownOptionError)
        # a known option with a bad value stays a library error, not a TypeError
        with self.assertRaises(ts.InvalidInputError) as cm:
            ts.place(topo, JOB, algo="nosuch")
        self.assertNotIsInstance(cm.exception, TypeError)


PUBLIC_CALLS = ("library_version", "status_name", "error_class", "place", "flows", "route", "prioritize", "kcut",
                "vclos", "cells", "crius_schedule", "simulate", "trace_convert_alibaba", "trace_convert_dcn",
                "trace_poisson")
METHODS = {ts.Topology: ("from_json", "load", "summary", "to_json", "set_free_gpus", "set_up", "import_slurm",
                         "import_slurm_yaml", "import_k8s_nodes", "export", "close"),
           ts.Job: ("from_json", "load", "to_json", "close")}


class HintsTest(unittest.TestCase):
    def annotated(self, fn, what):
        hints = typing.get_type_hints(fn)  # resolves every annotation: a typo fails here
        self.assertIn("return", hints, what)
        for name, param in inspect.signature(fn).parameters.items():
            if name not in ("self", "cls"):
                self.assertIn(name, hints, "%s: parameter %s has no annotation" % (what, name))
        return hints

    def test_every_public_call_is_annotated(self):
        for name in PUBLIC_CALLS:
            self.annotated(getattr(ts, name), name)
        for cls, names in METHODS.items():
            for name in names:
                self.annotated(getattr(cls, name), "%s.%s" % (cls.__name__, name))
        self.assertIs(typing.get_type_hints(ts.route)["return"], ts.RoutesResult)
        self.assertIs(typing.get_type_hints(ts.simulate)["return"], ts.SimResult)
        self.assertIs(typing.get_type_hints(ts.Topology.summary)["return"], ts.TopologySummary)
        self.assertEqual(set(typing.get_args(typing.get_type_hints(ts.place)["return"])),
                         {ts.PlacementResult, ts.Placement})

    def test_py_typed_ships(self):
        self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(ts.__file__), "py.typed")))


def conforms(test, value, tp, where):
    """Check a JSON value against a type of topo_sched._types, key by key."""
    origin = typing.get_origin(tp)
    if tp is typing.Any:
        return
    if origin is typing.Union:
        args = typing.get_args(tp)
        if value is None:
            test.assertIn(type(None), args, where)
            return
        tp = next(a for a in args if a is not type(None))
        origin = typing.get_origin(tp)
    if isinstance(tp, type) and issubclass(tp, dict) and hasattr(tp, "__required_keys__"):
        test.assertIsInstance(value, dict, where)
        hints = typing.get_type_hints(tp)
        missing = tp.__required_keys__ - set(value)
        test.assertFalse(missing, "%s: lacks %s" % (where, sorted(missing)))
        extra = set(value) - set(hints)
        test.assertFalse(extra, "%s: has keys the TypedDict does not declare: %s" % (where, sorted(extra)))
        for key, v in value.items():
            conforms(test, v, hints[key], "%s.%s" % (where, key))
    elif origin is list:
        test.assertIsInstance(value, list, where)
        (item,) = typing.get_args(tp)
        for i, v in enumerate(value):
            conforms(test, v, item, "%s[%d]" % (where, i))
    elif origin is dict:
        test.assertIsInstance(value, dict, where)
        _, item = typing.get_args(tp)
        for k, v in value.items():
            conforms(test, v, item, "%s.%s" % (where, k))
    elif tp is float:
        test.assertIsInstance(value, (int, float), where)  # JSON 400 reads back as int
        test.assertNotIsInstance(value, bool, where)
    elif tp is int:
        test.assertIsInstance(value, int, where)
        test.assertNotIsInstance(value, bool, where)
    else:
        test.assertIsInstance(value, tp, where)


class TypedResultsTest(unittest.TestCase):
    """The TypedDicts say what the results hold: every required key there, no key undeclared."""

    def test_results_match_their_typeddicts(self):
        with ts.Topology.load(data("cli", "cluster.json")) as topo:
            conforms(self, topo.summary(), ts.TopologySummary, "summary")
            topo.set_up(topo.to_json()["nodes"][0]["name"], False)
            conforms(self, topo.summary(), ts.TopologySummary, "summary (a node down)")
            for opts in ({}, {"no_timing": True}, {"algo": "best-fit"}):
                pl = ts.place(topo, read("cli", "job.json"), **opts)
                conforms(self, pl, ts.PlacementResult, "placement %s" % opts)
                self.assertEqual("solve_ms" in pl, not opts.get("no_timing"))
            launch = ts.place(topo, read("cli", "job.json"), hostfile=True)
            self.assertIsInstance(launch, ts.Placement)
            conforms(self, dict(launch), ts.PlacementResult, "placement with launch files")
            fl = ts.flows(topo, pl, pattern="dp-ring", gbits=10)
            conforms(self, fl, ts.FlowsResult, "flows")
            for opts in ({}, {"no_timing": True}, {"algo": "ecmp"}):
                conforms(self, ts.route(topo, fl, **opts), ts.RoutesResult, "routes %s" % opts)
        with ts.Topology.load(data("sim", "fabric.json")) as topo:
            for opts in ({}, {"no_timing": True, "links_report": True}):
                sim = ts.simulate(topo, read("sim", "trace.json"), scenario=read("sim", "scenario.json"), **opts)
                conforms(self, sim, ts.SimResult, "simresult %s" % opts)
                self.assertEqual("links" in sim, bool(opts.get("links_report")))
                self.assertTrue(sim["jobs"])

    def test_the_check_catches_a_wrong_result(self):
        topo = ts.Topology.from_json(FABRIC)
        self.addCleanup(topo.close)
        pl = ts.place(topo, JOB)
        for broken in ({k: v for k, v in pl.items() if k != "rows"}, dict(pl, extra=1), dict(pl, rows="2"),
                       dict(pl, assignment=[{"row": 0, "col": 0, "node": "n", "rank": "0"}])):
            with self.assertRaises(AssertionError):
                conforms(self, broken, ts.PlacementResult, "broken")


if __name__ == "__main__":
    unittest.main()

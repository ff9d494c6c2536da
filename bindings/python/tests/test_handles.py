# topo_sched: version, loading, summaries, state updates, errors and handle lifetime.
import gc
import json
import os
import pickle
import re
import unittest

import _common
import topo_sched as ts

LEAF_SPINE = {
    "format": "tsched.topology.v1", "name": "ls",
    "generate": {"kind": "leaf_spine", "leaves": 4, "spines": 2, "nodes_per_leaf": 3,
                 "gpus_per_node": 8, "nic_gbps": 400, "gpu_type": "H100"},
}

JOB = {"format": "tsched.job.v1", "name": "j", "gpus": 32, "tp": 8, "pp": 2, "alpha": 0.3}


class VersionTest(unittest.TestCase):
    def test_version_matches_library_and_package(self):
        v = ts.library_version()
        self.assertRegex(v, r"^\d+\.\d+\.\d+$")
        self.assertEqual(v, ts.__version__)
        expected = os.environ.get("TOPO_SCHED_VERSION")
        if expected:
            self.assertEqual(v, expected)
        with open(os.path.join(_common.PACKAGE_ROOT, "pyproject.toml"), encoding="utf-8") as f:
            m = re.search(r'^version\s*=\s*"([^"]+)"', f.read(), re.M)
        self.assertIsNotNone(m)
        self.assertEqual(m.group(1), v)

    def test_version_matches_cli(self):
        cli = _common.find_cli()
        if not cli:
            self.skipTest("no topo-sched command")
        import subprocess
        out = subprocess.run([cli, "--version"], capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.split()[-1], ts.library_version())

    def test_status_table(self):
        self.assertEqual(ts.STATUS["TSCHED_OK"], 0)
        self.assertEqual(ts.STATUS["TSCHED_E_PARSE"], 3)
        self.assertEqual(ts.STATUS["TSCHED_E_MISMATCH"], 19)
        self.assertEqual(ts.status_name(7), "TSCHED_E_NOT_FOUND")
        self.assertEqual(ts.status_name(10**6), "TSCHED_E_UNKNOWN")


class TopologyTest(unittest.TestCase):
    def test_generated_summary_counts(self):
        with ts.Topology.from_json(LEAF_SPINE) as topo:
            s = topo.summary()
        self.assertEqual(s["format"], "tsched.topology-summary.v1")
        self.assertEqual(s["name"], "ls")
        self.assertEqual(s["nodes"], 12)
        self.assertEqual(s["gpus"], 96)
        self.assertEqual(s["free_gpus"], 96)
        self.assertEqual(s["switches"], {"leaf": 4, "spine": 2, "core": 0})
        self.assertEqual(s["trunks"], 8)

    def test_loaded_summary_is_the_cli_one(self):
        path = _common.data("cli", "small.json")
        for topo in (ts.Topology.load(path), ts.Topology.from_json(_common.read("cli", "small.json")),
                     ts.Topology.from_json(_common.read("cli", "small.json").encode())):
            with topo:
                self.assertEqual(topo.summary(), _common.run_cli("topology", "show", "-t", path))

    def test_to_json_round_trip(self):
        with ts.Topology.from_json(LEAF_SPINE) as topo:
            doc = topo.to_json()
            self.assertEqual(doc["format"], "tsched.topology.v1")
            self.assertEqual(len(doc["nodes"]), 12)
            with ts.Topology.from_json(doc) as again:
                self.assertEqual(again.to_json(), doc)

    def test_state_updates(self):
        with ts.Topology.from_json(LEAF_SPINE) as topo:
            topo.set_free_gpus("node0", 3)
            topo.set_up("node1", False)
            topo.set_up("spine1", False)
            topo.set_up("leaf0~spine0", False)
            s = topo.summary()
            self.assertEqual(s["free_gpus"], 96 - 5 - 8)
            self.assertEqual(s["up_nodes"], 11)
            self.assertEqual(s["down"]["nodes"], ["node1"])
            self.assertEqual(s["down"]["switches"], ["spine1"])
            self.assertEqual(s["down"]["trunks"], ["leaf0~spine0"])
            topo.set_up("node1", True)
            topo.set_up("spine1", True)
            self.assertEqual(topo.summary()["free_gpus"], 96 - 5)
            self.assertEqual(topo.to_json()["state"]["free_gpus"], {"node0": 3})

    def test_state_errors(self):
        with ts.Topology.from_json(LEAF_SPINE) as topo:
            with self.assertRaises(ts.TopoSchedError) as cm:
                topo.set_free_gpus("nosuch", 1)
            self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_NOT_FOUND"])
            self.assertIn("nosuch", str(cm.exception))
            with self.assertRaises(ts.TopoSchedError) as cm:
                topo.set_free_gpus("node0", 9)
            self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_RANGE"])
            with self.assertRaises(ts.TopoSchedError) as cm:
                topo.set_up("spine9", False)
            self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_NOT_FOUND"])
            self.assertIn("spine9", str(cm.exception))
            self.assertEqual(topo.summary()["free_gpus"], 96)


class ErrorTest(unittest.TestCase):
    def test_bad_topology_names_the_field(self):
        bad = json.loads(json.dumps(LEAF_SPINE))
        bad["generate"]["gpus_per_node"] = 0
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.Topology.from_json(bad)
        err = cm.exception
        self.assertEqual(err.status, ts.STATUS["TSCHED_E_RANGE"])
        self.assertEqual(err.status_name, "TSCHED_E_RANGE")
        self.assertIn("generate.gpus_per_node", str(err))
        again = pickle.loads(pickle.dumps(err))
        self.assertEqual((again.status, str(again)), (err.status, str(err)))

    def test_bad_file_names_file_and_field(self):
        path = _common.data("cli", "bad-leaf.json")
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.Topology.load(path)
        self.assertIn("bad-leaf.json", str(cm.exception))
        code, stderr = _common.cli_error("topology", "show", "-t", path)
        self.assertEqual(code, 2)
        self.assertIn(str(cm.exception), stderr)

    def test_bad_job_names_the_field(self):
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.Job.from_json(dict(JOB, tp="8"))
        self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_TYPE"])
        self.assertIn("tp", str(cm.exception))

    def test_not_json(self):
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.Topology.from_json('{"format": ')
        self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_PARSE"])
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.Job.from_json({"format": "tsched.job.v1", "gpus": float("nan")})
        self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_PARSE"])
        with self.assertRaises(TypeError):
            ts.Topology.from_json(42)


class LifetimeTest(unittest.TestCase):
    def test_second_close_is_harmless(self):
        topo = ts.Topology.from_json(LEAF_SPINE)
        job = ts.Job.from_json(JOB)
        self.assertFalse(topo.closed)
        topo.close()
        topo.close()
        job.close()
        job.close()
        self.assertTrue(topo.closed and job.closed)
        with self.assertRaises(ValueError):
            topo.summary()
        with self.assertRaises(ValueError):
            job.to_json()

    def test_context_manager_and_del(self):
        with ts.Topology.from_json(LEAF_SPINE) as topo:
            pass
        self.assertTrue(topo.closed)
        for _ in range(200):  # __del__ frees: no handle survives its object
            ts.Job.from_json(JOB)
            ts.Topology.from_json(LEAF_SPINE)
        gc.collect()

    def test_handles_cannot_be_copied(self):
        # a copy would share the C handle: freed twice (a crash before this was refused)
        import copy
        for obj in (ts.Topology.from_json(LEAF_SPINE), ts.Job.from_json(JOB)):
            with obj:
                for dup in (copy.copy, copy.deepcopy, pickle.dumps):
                    with self.assertRaises(TypeError):
                        dup(obj)
                self.assertFalse(obj.closed)

    def test_nul_bytes_refused(self):
        # C would stop at the NUL and act on another element or file
        cli = os.path.join(_common.DATA, "cli", "cluster.json")
        with ts.Topology.load(cli) as topo:
            before = topo.to_json()
            for call in (lambda: topo.set_up("node5\0junk", False), lambda: topo.set_free_gpus("node6\0x", 0)):
                with self.assertRaises(ts.TopoSchedError) as cm:
                    call()
                self.assertEqual(cm.exception.status, ts.STATUS["TSCHED_E_INVALID"])
                self.assertIn("NUL", str(cm.exception))
            self.assertEqual(topo.to_json(), before)
        for load in (ts.Topology.load, ts.Job.load):
            with self.assertRaises(ts.TopoSchedError):
                load(cli + "\0junk")

    def test_job_round_trip(self):
        with ts.Job.from_json(JOB) as job:
            doc = job.to_json()
        self.assertEqual(doc["format"], "tsched.job.v1")
        self.assertEqual((doc["gpus"], doc["tp"], doc["pp"]), (32, 8, 2))
        self.assertEqual(doc["alpha"], 0.3)


if __name__ == "__main__":
    unittest.main()

# topo_sched and the live state (issue 25 item 3): the import functions pass the live-state
# options through the service, so a fabric imported with Kubernetes pods (pods_json) or Slurm's
# node list (nodes_json) has the free GPUs and down nodes of the command line on the same files.
import json
import unittest

from _common import data, read, run_cli
import topo_sched as ts

LEVELS = ["example.com/block", "example.com/rack"]
# tests/data/k8s/README.md: worked out by hand from pods-small.json
SMALL = {"gpu01": 2, "gpu02": 5, "gpu03": 0, "gpu04": 0, "gpu07": 3}


def live(doc):
    """(free GPUs of every node, down nodes) of a tsched.topology.v1 dict."""
    state = doc.get("state", {})
    free = {n["name"]: state.get("free_gpus", {}).get(n["name"], n["gpus"]) for n in doc["nodes"]}
    return free, sorted(state.get("down", []))


class KubernetesPodsTest(unittest.TestCase):
    def test_pods_json_as_text_and_as_dict(self):
        nodes, pods = read("import", "nodes.json"), read("k8s", "pods-small.json")
        want = run_cli("topology", "import-k8s-nodes", data("import", "nodes.json"), "--levels", ",".join(LEVELS),
                       "--pods-json", data("k8s", "pods-small.json"))
        self.assertEqual(live(want), (SMALL, ["gpu02", "gpu03"]))
        for given in (pods, json.loads(pods)):
            with ts.Topology.import_k8s_nodes(nodes, levels=LEVELS, pods_json=given) as t:
                self.assertEqual(live(t.to_json()), (SMALL, ["gpu02", "gpu03"]))
                self.assertEqual(t.to_json(), want)

    def test_without_pods_every_gpu_is_free(self):
        with ts.Topology.import_k8s_nodes(read("import", "nodes.json"), levels=LEVELS,
                                          pods_json=read("k8s", "pods-empty.json")) as t:
            free, down = live(t.to_json())
        self.assertEqual(free, {"gpu01": 8, "gpu02": 8, "gpu03": 8, "gpu04": 4, "gpu07": 8})
        self.assertEqual(down, ["gpu02", "gpu03"])

    def test_a_malformed_pod_list_names_the_option_and_field(self):
        bad = {"kind": "List", "items": [{"spec": {"containers": [{"resources": {"limits": {"nvidia.com/gpu": "1.5"}}}]}}]}
        with self.assertRaises(ts.TopoSchedError) as cm:
            ts.Topology.import_k8s_nodes(read("import", "nodes.json"), levels=LEVELS, pods_json=bad)
        self.assertIn('options.pods-json: items[0].spec.containers[0].resources.limits["nvidia.com/gpu"]: "1.5"',
                      str(cm.exception))


class SlurmNodesTest(unittest.TestCase):
    def test_nodes_json_gives_the_commands_free_gpus(self):
        conf, sinfo = read("slurm", "topology-16.conf"), read("slurm", "sinfo-22.05.json")
        want = run_cli("topology", "import-slurm", data("slurm", "topology-16.conf"), "--nodes-json",
                       data("slurm", "sinfo-22.05.json"))
        free, down = live(want)
        self.assertTrue(any(f < 8 for f in free.values()) or down, "the recorded state has busy or down nodes")
        with ts.Topology.import_slurm(conf, nodes_json=sinfo) as t:
            self.assertEqual(live(t.to_json()), (free, down))
            self.assertEqual(t.to_json(), want)


if __name__ == "__main__":
    unittest.main()

# topo_sched and the foreign formats: a user's journey from a cluster's own description to a
# placement in their scheduler's format and back, each step compared with the topo-sched
# command on the same files; the launch files of place; errors naming the field.
import json
import os
import tempfile
import unittest
import warnings

import _common
from _common import data, read, run_cli
import topo_sched as ts

LEVELS = ["example.com/block", "example.com/rack", "kubernetes.io/hostname"]
JOB = {"format": "tsched.job.v1", "name": "train", "gpus": 16, "tp": 8, "pp": 2}


def cli_text(*args):
    """The topo-sched command's exit status, standard output and standard error, as text."""
    import subprocess
    cli = _common.find_cli()
    if not cli:
        raise unittest.SkipTest("no topo-sched command (set TOPO_SCHED_CLI)")
    p = subprocess.run([cli] + list(args), capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def partitions(doc):
    """The fabric's domain partition: for each tier, the sets of node names under one switch
    of that tier (from the document's leaves and switch links alone)."""
    tier = {s["name"]: s["tier"] for s in doc["switches"]}
    parent = {}
    for link in doc.get("links", []):
        a, b = link["a"], link["b"]
        if tier[a] > tier[b]:
            a, b = b, a
        if tier[b] == tier[a] + 1:
            parent.setdefault(a, set()).add(b)
    out = {}
    for node in doc["nodes"]:
        ups = {node["leaf"]}
        while ups:
            for sw in ups:
                out.setdefault(tier[sw], {}).setdefault(sw, set()).add(node["name"])
            ups = set().union(*(parent.get(sw, set()) for sw in ups))
    return {t: sorted(sorted(s) for s in groups.values()) for t, groups in out.items()}


class JourneyTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="topo_sched_interop.")

    def tearDown(self):
        import shutil
        shutil.rmtree(self.tmp, ignore_errors=True)

    def path(self, name):
        return os.path.join(self.tmp, name)

    def test_kubernetes_to_kueue_and_slurm_and_back(self):
        nodes_file = data("import", "nodes.json")
        # 1. the cluster's own description: kubectl get nodes -o json
        with open(nodes_file, encoding="utf-8") as f:
            nodes = json.load(f)
        topo = ts.Topology.import_k8s_nodes(nodes, levels=LEVELS)
        want = run_cli("topology", "import-k8s-nodes", nodes_file, "--levels", ",".join(LEVELS))
        self.assertEqual(topo.to_json(), want)
        with open(self.path("fabric.json"), "w") as f:
            json.dump(want, f)
        # the same from the text and from the Kueue Topology
        self.assertEqual(ts.Topology.import_k8s_nodes(read("import", "nodes.json"), levels=",".join(LEVELS)).to_json(),
                         want)
        self.assertEqual(ts.Topology.import_k8s_nodes(nodes["items"],
                                                      kueue_topology=read("import", "kueue-topology.yaml")).to_json(),
                         want)
        # 2. place a job, with the pod order and the host file
        with open(self.path("job.json"), "w") as f:
            json.dump(JOB, f)
        pl = ts.place(topo, JOB, pod_order=True, hostfile=True, no_timing=True)
        self.assertIsInstance(pl, ts.Placement)
        self.assertEqual(pl, run_cli("place", "-t", self.path("fabric.json"), "-j", self.path("job.json"),
                                     "--no-timing", "--pod-order", self.path("pods.json"),
                                     "--hostfile", self.path("hosts")))
        with open(self.path("pods.json"), encoding="utf-8") as f:
            self.assertEqual(pl.pod_order, json.load(f))
        with open(self.path("hosts"), encoding="utf-8") as f:
            self.assertEqual(pl.hostfile, f.read())
        self.assertEqual(pl.pod_order["format"], "tsched.pod-order.v1")
        self.assertEqual([p["node"] for p in pl.pod_order["pods"]], [a["node"] for a in
                                                                    sorted(pl["assignment"], key=lambda a: a["rank"])])
        # the pod order written where Kubernetes reads it
        with open(self.path("mine.json"), "w") as f:
            json.dump(pl.pod_order, f)
        # the default answer is unchanged: a plain dict
        plain = ts.place(topo, JOB, no_timing=True)
        self.assertIs(type(plain), dict)
        self.assertEqual(plain, dict(pl))
        # 3. export to Kueue: exactly the command's text
        for opts, args in (({}, []), ({"kueue_api": "v1beta1", "format": "json"}, ["--kueue-api", "v1beta1",
                                                                                  "--format", "json"])):
            rc, out, err = cli_text("topology", "export", "-t", self.path("fabric.json"), "--to", "kueue", *args)
            self.assertEqual(rc, 0, err)
            self.assertEqual(topo.export("kueue", **opts), out)
        # 4. export to Slurm, import it back: the same domain partition
        conf = topo.export("slurm-conf")
        rc, out, _ = cli_text("topology", "export", "-t", self.path("fabric.json"), "--to", "slurm-conf")
        self.assertEqual(conf, out)
        back = ts.Topology.import_slurm(conf, gpus_per_node=8)
        with open(self.path("back.conf"), "w") as f:
            f.write(conf)
        self.assertEqual(back.to_json(), run_cli("topology", "import-slurm", self.path("back.conf"),
                                                 "--gpus-per-node", "8"))
        self.assertEqual(partitions(back.to_json()), partitions(want))
        self.assertEqual(len(partitions(want)), 2)  # racks and blocks
        # and through topology.yaml
        yml = topo.export("slurm-yaml")
        self.assertEqual(partitions(ts.Topology.import_slurm_yaml(yml).to_json()), partitions(want))
        for t in (topo, back):
            t.close()

    def test_slurm_imports_are_the_commands(self):
        for name, opts, args in (("tree.conf", {}, []),
                                 ("block.conf", {"gpus_per_node": 4, "no_nvl": True}, ["--gpus-per-node", "4",
                                                                                       "--no-nvl"]),
                                 ("scontrol-tree.txt", {"nic_gbps": 200, "gpu_type": "H100", "name": "x"},
                                  ["--nic-gbps", "200", "--gpu-type", "H100", "--name", "x"])):
            t = ts.Topology.import_slurm(read("import", name).encode(), **opts)
            self.assertEqual(t.to_json(), run_cli("topology", "import-slurm", data("import", name), *args), name)
        t = ts.Topology.import_slurm_yaml(read("import", "topology.yaml"), nvl_topology="nvlink")
        self.assertEqual(t.to_json(), run_cli("topology", "import-slurm-yaml", data("import", "topology.yaml"),
                                              "--nvl-topology", "nvlink"))

    def test_export_warning_goes_through_warnings(self):
        doc = {"format": "tsched.topology.v1", "name": "w",
               "switches": [{"name": "r1", "tier": 0}, {"name": "r2", "tier": 0}, {"name": "b", "tier": 1}],
               "links": [{"a": "r1", "b": "b", "gbps": 400}, {"a": "r2", "b": "b", "gbps": 400}],
               "nodes": [{"name": "g%d" % i, "leaf": "r1" if i < 2 else "r2", "gpus": 8, "nvl_domain": "xy"[i % 2]}
                         for i in range(4)]}
        with open(self.path("w.json"), "w") as f:
            json.dump(doc, f)
        rc, out, err = cli_text("topology", "export", "-t", self.path("w.json"), "--to", "volcano")
        t = ts.Topology.from_json(doc)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertEqual(t.export("volcano"), out)
            self.assertEqual(t.export("slurm-conf"), cli_text("topology", "export", "-t", self.path("w.json"),
                                                              "--to", "slurm-conf")[1])
        self.assertEqual(len(caught), 1)
        self.assertIs(caught[0].category, ts.ExportWarning)
        self.assertIn(str(caught[0].message), err)
        with warnings.catch_warnings():
            warnings.simplefilter("error", ts.ExportWarning)
            with self.assertRaises(ts.ExportWarning):
                t.export("kueue")

    def test_errors_name_the_field(self):
        nodes = json.loads(read("import", "nodes.json"))
        for call, field in ((lambda: ts.Topology.import_slurm("junk"), "text: line 1"),
                            (lambda: ts.Topology.import_slurm("SwitchName=s Nodes=n1", gpus_per_node=0),
                             "options.gpus-per-node"),
                            (lambda: ts.Topology.import_k8s_nodes(nodes), "options: give exactly one"),
                            (lambda: ts.Topology.import_k8s_nodes(nodes, levels=["a", ""]), "options.levels[1]"),
                            (lambda: ts.Topology.import_k8s_nodes({}, levels="a"), "nodes: "),
                            (lambda: ts.Topology.load(data("cli", "cluster.json")).export("lsf"), "options.to"),
                            (lambda: ts.Topology.load(data("cli", "cluster.json")).export("slurm-conf", tier_names=True),
                             "options.tier-names"),
                            (lambda: ts.place(ts.Topology.load(data("cli", "cluster.json")), JOB, index_label="x"),
                             "options.index-label"),
                            (lambda: ts.place(ts.Topology.load(data("cli", "cluster.json")), JOB, pod_order=True,
                                              index_label="not a key"), "options.index-label")):
            with self.assertRaises(ts.TopoSchedError) as cm:
                call()
            self.assertTrue(str(cm.exception).startswith(field), "%s: %s" % (field, cm.exception))
            self.assertEqual(cm.exception.exit, 2)
        with self.assertRaises(TypeError):
            ts.place(ts.Topology.load(data("cli", "cluster.json")), JOB, hostfile="hosts.txt")
        with self.assertRaises(TypeError):
            ts.Topology.import_slurm(None)


if __name__ == "__main__":
    unittest.main()

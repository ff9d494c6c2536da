#!/usr/bin/env python3
"""Every Kubernetes export (doc/export.md) checked against the upstream CRD schemas.

For several fabrics (generated trees and Clos, NVLink domains, names that need --sanitize,
an import-k8s-nodes fabric whose `parent/value` renames reach 73 characters, FQDN node names)
every target (kueue with each API version, kai, volcano) is exported with and without
--no-nodes, --no-hostname-level, --sanitize and --format json. Each object must validate
against the openAPIV3Schema of its CRD version (tests/data/crd, SOURCE.md there) with
python3-jsonschema, and pass what the schema cannot say: apimachinery's object-name, label
key and label value rules, the CEL rules of Kueue/KAI `spec.levels` (unique, the hostname
level last only, immutable: the same export twice and a Topology round trip through
import-k8s-nodes give the same levels), the HyperNode selector rules and Volcano's admission
policy (every exactMatch name a qualified name: at most 63 characters). Exports refused
without --sanitize must name the object, the name and the limit; the pod order must select
the node's kubernetes.io/hostname label value.

usage: crd_validate.py TOPO_SCHED CRD_DIR   (exit 77 without python3-jsonschema or PyYAML)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import jsonschema
    import yaml
except ImportError as e:
    print("skipping: %s (apt-get install python3-jsonschema python3-yaml)" % e)
    sys.exit(77)

EXE, CRD = os.path.abspath(sys.argv[1]), sys.argv[2]
TMP = tempfile.mkdtemp(prefix="crd_validate.")
failures = 0
checked = {"objects": 0, "exports": 0}


def fail(msg):
    global failures
    failures += 1
    print("FAIL:", msg)


def run(*args):
    return subprocess.run([EXE] + [str(a) for a in args], capture_output=True, text=True)


def write(name, obj):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write(obj if isinstance(obj, str) else json.dumps(obj))
    return path


def schema(name):
    with open(os.path.join(CRD, name)) as f:
        return jsonschema.Draft7Validator(yaml.safe_load(f))


SCHEMAS = {
    "kueue.x-k8s.io/v1alpha1": schema("kueue-topology-v1alpha1.yaml"),
    "kueue.x-k8s.io/v1beta1": schema("kueue-topology-v1beta1.yaml"),
    "kueue.x-k8s.io/v1beta2": schema("kueue-topology-v1beta2.yaml"),
    "kai.scheduler/v1alpha1": schema("kai-topology-v1alpha1.yaml"),
    "topology.volcano.sh/v1alpha1": schema("volcano-hypernode-v1alpha1.yaml"),
}

# ---- apimachinery (k8s.io/apimachinery/pkg/util/validation) ---------------------------------

DNS1123_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN = re.compile(r"^%s(\.%s)*$" % (DNS1123_LABEL, DNS1123_LABEL))
QUALIFIED_NAME_PART = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
LABEL_VALUE = re.compile(r"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$")


def is_dns1123_subdomain(s):
    return len(s) <= 253 and bool(DNS1123_SUBDOMAIN.match(s))


def is_qualified_name(s):
    """IsQualifiedName: [prefix/]name, prefix a DNS subdomain, name at most 63 characters."""
    parts = s.split("/")
    if len(parts) == 2:
        prefix, name = parts
        if not prefix or not is_dns1123_subdomain(prefix):
            return False
    elif len(parts) == 1:
        name = parts[0]
    else:
        return False
    return 0 < len(name) <= 63 and bool(QUALIFIED_NAME_PART.match(name))


def is_label_value(s):
    return len(s) <= 63 and bool(LABEL_VALUE.match(s))


# ---- one object --------------------------------------------------------------------------------

def check_levels(where, levels):
    """The CEL rules of Topology spec.levels (Kueue and KAI)."""
    labels = [l["nodeLabel"] for l in levels]
    if len(set(labels)) != len(labels):
        fail("%s: spec.levels must be unique: %s" % (where, labels))
    if "kubernetes.io/hostname" in labels and labels[-1] != "kubernetes.io/hostname":
        fail("%s: kubernetes.io/hostname only at the lowest level: %s" % (where, labels))
    for l in labels:
        if not is_qualified_name(l):
            fail("%s: nodeLabel %r is not a label key" % (where, l))


def check_object(where, doc, opts):
    checked["objects"] += 1
    api, kind, md = doc.get("apiVersion"), doc.get("kind"), doc.get("metadata", {})
    name = md.get("name", "")
    if not is_dns1123_subdomain(name):
        fail("%s: metadata.name %r is not a DNS-1123 subdomain" % (where, name))
    if kind == "Node":
        if api != "v1" or set(doc) != {"apiVersion", "kind", "metadata"} or set(md) != {"name", "labels"}:
            fail("%s: Node object %r" % (where, doc))
        for k, v in md["labels"].items():
            if not is_qualified_name(k) or not is_label_value(v):
                fail("%s: label %r: %r" % (where, k, v))
        return
    v = SCHEMAS.get(api)
    if v is None:
        fail("%s: unknown apiVersion %r" % (where, api))
        return
    for e in v.iter_errors(doc):
        fail("%s: %s: %s at %s" % (where, api, e.message, "/".join(str(p) for p in e.absolute_path)))
    if kind == "Topology":
        check_levels(where, doc["spec"]["levels"])
        if "--no-hostname-level" in opts and doc["spec"]["levels"][-1]["nodeLabel"] == "kubernetes.io/hostname":
            fail("%s: --no-hostname-level wrote the hostname level" % where)
    elif kind == "HyperNode":
        if not is_qualified_name(name):
            fail("%s: HyperNode name %r is not a qualified name (it is a member name one tier up)" % (where, name))
        for m in doc["spec"]["members"]:
            sel = m["selector"]
            if sum(k in sel for k in ("exactMatch", "regexMatch", "labelMatch")) != 1:
                fail("%s: selector %r" % (where, sel))
            n = sel.get("exactMatch", {}).get("name", "")
            if not n or not is_qualified_name(n):  # Volcano's admission policy
                fail("%s: member exactMatch name %r is not a qualified name" % (where, n))
    else:
        fail("%s: unexpected kind %r" % (where, kind))


def export(topo, to, *opts):
    p = run("topology", "export", "-t", topo, "--to", to, *opts)
    if p.returncode != 0:
        return None, p
    if "--format" in opts:
        lst = json.loads(p.stdout)
        docs = lst["items"]
    else:
        docs = list(yaml.safe_load_all(p.stdout))
    return docs, p


OPTION_SETS = [[], ["--no-nodes"], ["--no-hostname-level"], ["--sanitize"], ["--format", "json"],
               ["--no-nodes", "--no-hostname-level", "--sanitize"]]
TARGETS = [("kueue", ["--kueue-api", "v1beta2"]), ("kueue", ["--kueue-api", "v1beta1"]),
           ("kueue", ["--kueue-api", "v1alpha1"]), ("kai", []), ("volcano", []), ("volcano", ["--tier-names"])]


def check_fabric(label, topo, need_sanitize=()):
    """`need_sanitize`: the targets that must refuse the fabric without --sanitize."""
    for to, extra in TARGETS:
        for opts in OPTION_SETS:
            if "--no-hostname-level" in opts and to == "volcano":
                continue
            args = extra + opts
            where = "%s --to %s %s" % (label, to, " ".join(args))
            docs, p = export(topo, to, *args)
            if docs is None:
                if to in need_sanitize and "--sanitize" not in opts and p.returncode == 2:
                    continue
                fail("%s: exit %d: %s" % (where, p.returncode, p.stderr.strip()))
                continue
            checked["exports"] += 1
            if to in need_sanitize and "--sanitize" not in opts:
                fail("%s: exported without --sanitize" % where)
            for i, d in enumerate(docs):
                check_object("%s: document %d" % (where, i), d, opts)
            kinds = [d["kind"] for d in docs]
            if "--no-nodes" in opts and "Node" in kinds:
                fail("%s: --no-nodes wrote Node objects" % where)
            if to != "volcano" and "--no-nodes" not in opts and "Node" not in kinds:
                fail("%s: no Node objects" % where)
            # immutable levels: the same export again gives the same spec
            again, _ = export(topo, to, *args)
            if again != docs:
                fail("%s: a second export differs" % where)


def expect_error(args, needles, status=2):
    p = run(*args)
    if p.returncode != status or p.stdout or p.stderr.count("\n") != 1 or not all(n in p.stderr for n in needles):
        fail("%s: exit %d, stdout %r, stderr %r (wanted %s)" % (" ".join(args), p.returncode, p.stdout[:200],
                                                               p.stderr, needles))
    return p


# ---- fabrics -----------------------------------------------------------------------------------

def k8s_nodes(items):
    return {"apiVersion": "v1", "kind": "List", "items": items}


def k8s_node(name, labels, gpus=8, ready="True"):
    return {"metadata": {"name": name, "labels": labels}, "spec": {},
            "status": {"allocatable": {"nvidia.com/gpu": str(gpus)},
                       "conditions": [{"type": "Ready", "status": ready}]}}


def long_rename_fabric():
    """Two blocks whose racks share 63-character values: import-k8s-nodes names them
    `<block>/<rack>`, 73 characters, and a HyperNode name `<block>.<rack>`."""
    rack = "rack-" + "x" * 58  # 63 characters
    items = []
    for b in range(2):
        for r in range(2):
            for n in range(2):
                idx = b * 4 + r * 2 + n
                items.append(k8s_node("gpu%02d" % idx, {
                    "example.com/block": "block-000%d" % b,  # 10 characters: 10 + 1 + 63 = 74
                    "example.com/rack": rack if r == 0 else "r%d" % r,
                    "kubernetes.io/hostname": "gpu%02d" % idx}))
    path = write("long-nodes.json", k8s_nodes(items))
    p = run("topology", "import-k8s-nodes", path, "--levels", "example.com/block,example.com/rack")
    if p.returncode:
        raise SystemExit("import-k8s-nodes: %s" % p.stderr)
    fab = json.loads(p.stdout)
    longest = max(len(s["name"]) for s in fab["switches"])
    if longest < 73:
        fail("the import's renames are only %d characters" % longest)
    return write("long.json", p.stdout), rack


def main():
    gen = {"format": "tsched.topology.v1", "name": "ls",
           "generate": {"kind": "leaf_spine", "leaves": 4, "spines": 2, "nodes_per_leaf": 2, "gpus_per_node": 8,
                        "nic_gbps": 400}}
    clos = {"format": "tsched.topology.v1", "name": "clos",
            "generate": {"kind": "clos3", "pods": 2, "leaves_per_pod": 2, "spines_per_pod": 2, "cores": 2,
                         "nodes_per_leaf": 2, "gpus_per_node": 8, "nic_gbps": 400}}
    nvl = {"format": "tsched.topology.v1", "name": "nvl",
           "switches": [{"name": "rk1", "tier": 0}, {"name": "rk2", "tier": 0}, {"name": "blk1", "tier": 1}],
           "links": [{"a": "rk1", "b": "blk1", "gbps": 800}, {"a": "rk2", "b": "blk1", "gbps": 800}],
           "nodes": [{"name": "gpu%02d" % i, "leaf": "rk1" if i <= 4 else "rk2", "gpus": 4,
                      "nvl_domain": "nvl%d" % ((i - 1) // 2)} for i in range(1, 9)]}
    upper = {"format": "tsched.topology.v1", "name": "Fabric_A",
             "switches": [{"name": "Rack 1", "tier": 0}, {"name": "rack_2", "tier": 0}, {"name": "B1", "tier": 1}],
             "links": [{"a": "Rack 1", "b": "B1", "gbps": 400}, {"a": "rack_2", "b": "B1", "gbps": 400}],
             "nodes": [{"name": "gpu01", "leaf": "Rack 1", "gpus": 8}, {"name": "gpu02", "leaf": "rack_2", "gpus": 8}]}
    check_fabric("leaf_spine", write("ls.json", gen))
    # the sanitizer setup (TSCHED_SLOW_BUILD) leaves out the two fabrics whose export paths
    # the others already take (the schemas, not the C code, are what they add)
    if not os.environ.get("TSCHED_SLOW_BUILD"):
        check_fabric("clos3", write("clos.json", clos))
        check_fabric("nvl", write("nvl.json", nvl))
    check_fabric("upper-case names", write("upper.json", upper), need_sanitize=("kueue", "kai", "volcano"))
    long_path, rack = long_rename_fabric()
    check_fabric("73-character renames", long_path, need_sanitize=("volcano",))

    # The limits, without --sanitize: one line naming the object, the name and the limit.
    p = expect_error(["topology", "export", "-t", long_path, "--to", "volcano"],
                     ["HyperNode name", "block-0000." + rack[:20], "74 characters", "limit of 63", "sanitize"])
    # with it: shortened names, unique, stable, the first 54 characters kept
    docs, _ = export(long_path, "volcano", "--sanitize")
    names = [d["metadata"]["name"] for d in docs]
    if len(set(names)) != len(names) or max(len(n) for n in names) > 63:
        fail("--sanitize: HyperNode names %s" % names)
    short = [n for n in names if n.startswith("block-0000.rack-")]
    if len(short) != 1 or not re.fullmatch(r"block-0000\.rack-x+-[0-9a-f]{8}", short[0]) or len(short[0]) != 63:
        fail("--sanitize: shortened name %s" % short)
    # Kueue keeps the raw values (63 characters, valid label values): no error
    docs, p = export(long_path, "kueue")
    if docs is None or not any(rack in d["metadata"].get("labels", {}).values() for d in docs):
        fail("kueue of the long renames: %s" % (p.stderr if docs is None else "no rack label"))
    # two long names that shorten to one name: a duplicate, named
    dup = {"format": "tsched.topology.v1", "name": "dup",
           "switches": [{"name": "a" * 70, "tier": 0}, {"name": "A" * 70, "tier": 0}, {"name": "b", "tier": 1}],
           "links": [{"a": "a" * 70, "b": "b", "gbps": 400}, {"a": "A" * 70, "b": "b", "gbps": 400}],
           "nodes": [{"name": "n1", "leaf": "a" * 70, "gpus": 8}, {"name": "n2", "leaf": "A" * 70, "gpus": 8}]}
    expect_error(["topology", "export", "-t", write("dup.json", dup), "--to", "volcano", "--sanitize"],
                 ["HyperNode", "get this name"])
    # a Topology name over 253 characters; a node name over 63 for Volcano (never sanitized)
    expect_error(["topology", "export", "-t", write("ls.json", gen), "--to", "kueue", "--name", "t" * 254],
                 ["Topology", "254 characters", "limit of 253"])
    fq = {"format": "tsched.topology.v1", "name": "fq", "switches": [{"name": "l", "tier": 0}], "links": [],
          "nodes": [{"name": "gpu01." + "d" * 60 + ".example.com", "leaf": "l", "gpus": 8}]}
    expect_error(["topology", "export", "-t", write("fq.json", fq), "--to", "volcano", "--sanitize"],
                 ['node "gpu01.ddd', "78 characters", "limit of 63"])
    docs, p = export(write("fq.json", fq), "kai")
    if docs is None:
        fail("kai of an FQDN node name: %s" % p.stderr)

    # Kueue round trip: an existing Topology without the hostname level, imported and exported
    # with --no-hostname-level and --name, comes back with the same name and levels (Kueue's
    # CEL rule refuses any change of spec.levels).
    for api in ("v1beta2", "v1beta1", "v1alpha1"):
        existing = {"apiVersion": "kueue.x-k8s.io/" + api, "kind": "Topology", "metadata": {"name": "default"},
                    "spec": {"levels": [{"nodeLabel": "example.com/block"}, {"nodeLabel": "example.com/rack"}]}}
        nodes = write("rt-nodes.json", k8s_nodes([
            k8s_node("gpu%02d" % i, {"example.com/block": "b%d" % (i // 4), "example.com/rack": "r%d" % (i // 2),
                                     "kubernetes.io/hostname": "gpu%02d" % i}) for i in range(8)]))
        p = run("topology", "import-k8s-nodes", nodes, "--kueue-topology", write("rt-topo.json", existing))
        if p.returncode:
            fail("import of the round trip: %s" % p.stderr)
            continue
        fab = write("rt.json", p.stdout)
        docs, p = export(fab, "kueue", "--kueue-api", api, "--no-hostname-level", "--name", "default", "--no-nodes")
        if docs != [existing]:
            fail("Kueue %s round trip: %s %s" % (api, docs, p.stderr))
        docs, _ = export(fab, "kueue", "--kueue-api", api, "--name", "default")
        if docs[0]["spec"]["levels"][-1] != {"nodeLabel": "kubernetes.io/hostname"}:
            fail("Kueue %s: the hostname level is gone by default" % api)
    # v1alpha1 of the first TAS releases: at most 8 levels
    deep = {"format": "tsched.topology.v1", "name": "deep",
            "switches": [{"name": "s%d" % t, "tier": t} for t in range(8)],
            "links": [{"a": "s%d" % t, "b": "s%d" % (t + 1), "gbps": 400} for t in range(7)],
            "nodes": [{"name": "n1", "leaf": "s0", "gpus": 8}]}
    deep_path = write("deep.json", deep)
    expect_error(["topology", "export", "-t", deep_path, "--to", "kueue", "--kueue-api", "v1alpha1"],
                 ["8 levels and the hostname", "8 levels", "kueue.x-k8s.io/v1alpha1"])
    docs, p = export(deep_path, "kueue", "--kueue-api", "v1alpha1", "--no-hostname-level")
    if docs is None:
        fail("v1alpha1 with 8 levels and --no-hostname-level: %s" % p.stderr)
    else:
        check_object("deep v1alpha1", docs[0], ["--no-hostname-level"])
    # options that do not apply
    expect_error(["topology", "export", "-t", deep_path, "--to", "volcano", "--no-hostname-level"],
                 ["--no-hostname-level"])
    expect_error(["topology", "export", "-t", deep_path, "--to", "slurm-conf", "--no-nodes"], ["--no-nodes"])
    expect_error(["topology", "export", "-t", deep_path, "--to", "kai", "--kueue-api", "v1alpha1"], ["--kueue-api"])

    # -o yaml (kubectl's habit) is not a file name here
    cwd = os.getcwd()
    os.chdir(TMP)
    try:
        for word in ("yaml", "json"):
            expect_error(["topology", "export", "-t", deep_path, "--to", "kueue", "-o", word], ["--format", word])
            if os.path.exists(word):
                fail("-o %s wrote a file" % word)
        p = run("topology", "export", "-t", deep_path, "--to", "slurm-conf", "-o", "./yaml")
        if p.returncode or not os.path.exists("yaml"):
            fail("-o ./yaml: %s" % p.stderr)
    finally:
        os.chdir(cwd)

    # The pod order selects the kubernetes.io/hostname label value the import read.
    items = [k8s_node("gpu%02d.cluster-a.example.com" % i,
                      {"example.com/rack": "r%d" % (i // 2), "kubernetes.io/hostname": "gpu%02d" % i})
             for i in range(4)]
    p = run("topology", "import-k8s-nodes", write("fqdn-nodes.json", k8s_nodes(items)), "--levels", "example.com/rack")
    if p.returncode:
        fail("import of FQDN nodes: %s" % p.stderr)
    else:
        fab = write("fqdn.json", p.stdout)
        if [n.get("hostname_label") for n in json.loads(p.stdout)["nodes"]] != ["gpu%02d" % i for i in range(4)]:
            fail("the import keeps no hostname: %s" % p.stdout)
        job = write("job.json", {"format": "tsched.job.v1", "name": "jx", "gpus": 32, "tp": 8, "pp": 1})
        pods = os.path.join(TMP, "pods.json")
        p = run("place", "-t", fab, "-j", job, "--no-timing", "-o", os.path.join(TMP, "pl.json"),
                "--pod-order", pods)
        if p.returncode:
            fail("place --pod-order: %s" % p.stderr)
        else:
            for pod in json.load(open(pods))["pods"]:
                host = pod["nodeSelector"]["kubernetes.io/hostname"]
                if pod["node"] != host.replace("gpu", "gpu", 1) + ".cluster-a.example.com" or len(host) != 5:
                    fail("pod order selects %r for node %r" % (host, pod["node"]))
    # a name over 63 characters and no recorded label: an error naming the node
    long_node = {"format": "tsched.topology.v1", "name": "fq", "switches": [{"name": "l", "tier": 0}], "links": [],
                 "nodes": [{"name": "gpu%02d." % i + "d" * 60 + ".example.com", "leaf": "l", "gpus": 8}
                           for i in range(2)]}
    job = write("job1.json", {"format": "tsched.job.v1", "name": "jx", "gpus": 8, "tp": 8, "pp": 1})
    expect_error(["place", "-t", write("ln.json", long_node), "-j", job, "--no-timing", "-o",
                  os.path.join(TMP, "pl.json"), "--pod-order", os.path.join(TMP, "p2.json")],
                 ['node "gpu0', "kubernetes.io/hostname", "over the 63"])

    print("%d exports, %d objects checked" % (checked["exports"], checked["objects"]))
    if failures:
        print("%d failures" % failures)
        sys.exit(1)
    print("all CRD checks passed")


if __name__ == "__main__":
    main()

#!/bin/sh
# topo-sched topology import-slurm / import-slurm-yaml / import-k8s-nodes (doc/slurm-import.md,
# doc/k8s-import.md), driven as a user would: the fixtures of tests/data/import give fabrics
# the loader accepts, with the expected shape; every bad input of the import errors exits 2
# with one line on standard error naming the file and the field.
# usage: test_import_cli.sh PATH/TO/topo-sched TESTS_DATA_DIR
set -u
ts=$1 data=$2/import
tmp=${TMPDIR:-/tmp}/tsched-import.$$
mkdir -p "$tmp"
trap 'rm -rf "$tmp"' EXIT

if ! command -v python3 > /dev/null 2>&1; then
    echo "python3 not found: the JSON checks need it"
    exit 77
fi

. "$(dirname "$0")/cli_lib.sh"
# fails CODE TEXT DESCRIPTION -- command...: exit CODE, one line on stderr holding TEXT, no stdout
fails() {
    want=$1 text=$2 what=$3
    shift 4
    expect "$want" "$what" -- "$@"
    lines "$tmp/err" 1 "$what: one error line"
    has "$tmp/err" "$text" "$what: the message"
    if [ -s "$tmp/out" ]; then bad "$what: wrote to stdout"; else ok; fi
}
# shape FILE DESCRIPTION PYTHON-EXPR: the document, loaded as d, makes the expression true
shape() {
    if python3 - "$1" "$3" > "$tmp/py" 2>&1 <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
sw = {s["name"]: s for s in d["switches"]}
node = {n["name"]: n for n in d["nodes"]}
tier = lambda k: [s["name"] for s in d["switches"] if s["tier"] == k]
link = lambda a, b: any({l["a"], l["b"]} == {a, b} for l in d["links"])
sys.exit(0 if eval(sys.argv[2]) else 1)
EOF
    then ok; else bad "$2: $3 $(head -c 300 "$tmp/py")"; fi
}
# loads FILE DESCRIPTION: topology show accepts the document
loads() {
    expect 0 "$2: topology show loads it" -- "$ts" topology show -t "$1"
}

# ---- import-slurm: tree, block, scontrol output, deep trees -------------------------------
expect 0 "tree.conf" -- "$ts" topology import-slurm "$data/tree.conf" -o "$tmp/tree.json"
loads "$tmp/tree.json" "tree.conf"
shape "$tmp/tree.json" "tree.conf" 'tier(0) == ["rack1","rack2","rack3","rack4"] and tier(1) == ["pod1","pod2"] and tier(2) == ["core"] and node["gpu07"]["leaf"] == "rack2"'

expect 0 "block.conf" -- "$ts" topology import-slurm "$data/block.conf" --gpus-per-node 4 -o "$tmp/block.json"
loads "$tmp/block.json" "block.conf"
shape "$tmp/block.json" "block.conf" 'tier(1) == ["blocks1-0","blocks1-1","blocks1-2"] and tier(2) == ["blocks2-0","blocks2-1"] and tier(3) == ["blocks-root"] and node["gpu13"]["nvl_domain"] == "nvl4" and node["gpu13"]["gpus"] == 4 and link("blocks1-2", "blocks2-1")'
expect 0 "block.conf --no-nvl" -- "$ts" topology import-slurm "$data/block.conf" --no-nvl -o "$tmp/block-nonvl.json"
shape "$tmp/block-nonvl.json" "--no-nvl" 'all("nvl_domain" not in n for n in d["nodes"])'
expect 0 "scontrol tree text" -- "$ts" topology import-slurm "$data/scontrol-tree.txt" -o "$tmp/sc.json"
shape "$tmp/sc.json" "scontrol: LinkSpeed ignored" 'tier(1) == ["s2"] and all(l["gbps"] == 12800 for l in d["links"])'
for n in 5 8; do
    expect 0 "deep$n.conf" -- "$ts" topology import-slurm "$data/deep$n.conf" -o "$tmp/deep$n.json"
    loads "$tmp/deep$n.json" "deep$n.conf"
    shape "$tmp/deep$n.json" "deep$n.conf" "max(s['tier'] for s in d['switches']) == $n - 1 and len(d['nodes']) == 2 ** $n"
done
fails 2 "deep9.conf: line 512: switch \"s8-0\" would be tier 8" "deep9.conf: a ninth level" -- \
    "$ts" topology import-slurm "$data/deep9.conf"

# ---- import-slurm-yaml ----------------------------------------------------------------------
expect 0 "topology.yaml" -- "$ts" topology import-slurm-yaml "$data/topology.yaml" -o "$tmp/y.json"
loads "$tmp/y.json" "topology.yaml"
shape "$tmp/y.json" "default entry" 'tier(0) == ["rk1","rk2"] and tier(1) == ["spine"] and "nvl_domain" not in node["gpu01"]'
expect 0 "--nvl-topology" -- "$ts" topology import-slurm-yaml "$data/topology.yaml" --nvl-topology nvlink -o "$tmp/y2.json"
shape "$tmp/y2.json" "--nvl-topology" 'tier(0) == ["rk1","rk2"] and node["gpu05"]["nvl_domain"] == "nvl2"'
expect 0 "--topology nvlink" -- "$ts" topology import-slurm-yaml "$data/topology.yaml" --topology nvlink -o "$tmp/y3.json"
shape "$tmp/y3.json" "--topology nvlink" 'tier(0) == ["nvl1","nvl2"] and tier(1) == ["blocks1-0"]'
expect 0 "stdin" -- sh -c "'$ts' topology import-slurm-yaml - < '$data/topology.yaml' > '$tmp/y4.json'"
if cmp -s "$tmp/y.json" "$tmp/y4.json"; then ok; else bad "topology.yaml from stdin differs"; fi
fails 2 "topology.yaml: line 23: [2]: topology \"everything\" is flat" "a flat entry" -- \
    "$ts" topology import-slurm-yaml "$data/topology.yaml" --topology everything
fails 2 "topology.yaml: option topology: no topology named \"nope\"" "unknown --topology" -- \
    "$ts" topology import-slurm-yaml "$data/topology.yaml" --topology nope
fails 2 "topology.yaml: option nvl_topology: no topology named \"nope\"" "unknown --nvl-topology" -- \
    "$ts" topology import-slurm-yaml "$data/topology.yaml" --nvl-topology nope

# ---- import-k8s-nodes -----------------------------------------------------------------------
levels=example.com/block,example.com/rack,kubernetes.io/hostname
expect 0 "nodes.json" -- "$ts" topology import-k8s-nodes "$data/nodes.json" --levels "$levels" -o "$tmp/k.json"
loads "$tmp/k.json" "nodes.json"
shape "$tmp/k.json" "label domains" 'tier(0) == ["b1/r1","r2","b2/r1","r3"] and tier(1) == ["b1","b2"] and sw["b1/r1"]["value"] == "r1" and "value" not in sw["r2"]'
shape "$tmp/k.json" "nodes, down, excluded" '[n["name"] for n in d["nodes"]] == ["gpu01","gpu02","gpu03","gpu04","gpu07"] and d["state"]["down"] == ["gpu02","gpu03"] and d["excluded"] == {"gpu05": "no nvidia.com/gpu", "gpu06": "missing label example.com/rack", "cpu01": "no nvidia.com/gpu"}'
shape "$tmp/k.json" "labels, NVLink, GPU type" 'd["labels"] == {"tiers": ["example.com/rack", "example.com/block"], "nvl": "nvidia.com/gpu.clique"} and node["gpu01"]["nvl_domain"] == "7c1f0d2e.1" and node["gpu01"]["gpu_type"] == "NVIDIA-H100-80GB-HBM3" and node["gpu04"]["gpu_type"] == "GPU"'
for k in yaml json; do
    expect 0 "--kueue-topology ($k)" -- "$ts" topology import-k8s-nodes "$data/nodes.json" \
        --kueue-topology "$data/kueue-topology.$k" -o "$tmp/kq.json"
    if cmp -s "$tmp/k.json" "$tmp/kq.json"; then ok; else bad "--kueue-topology $k differs from --levels"; fi
done
expect 0 "options" -- "$ts" topology import-k8s-nodes "$data/node-single.json" --levels example.com/rack \
    --nvl-label "" --gpu-type X --nics-per-node 2 --nic-gbps 100 --name prod -o "$tmp/k1.json"
shape "$tmp/k1.json" "options" 'd["name"] == "prod" and node["gpu01"]["nics"] == 2 and node["gpu01"]["nic_gbps"] == 100 and "nvl_domain" not in node["gpu01"]'

# ---- the import errors: exit 2, one line naming the file and the field ----------------------
printf 'BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[4-7]\n' > "$tmp/twoblocks.conf"
fails 2 'twoblocks.conf: line 2: Nodes=: node "n4" is listed under block "b1" (line 1) and under block "b2"' \
    "a node in two blocks" -- "$ts" topology import-slurm "$tmp/twoblocks.conf"
printf 'SwitchName=l1 Nodes=n[1-2]\nSwitchName=l2 Nodes=n2\n' > "$tmp/twoleaves.conf"
fails 2 'twoleaves.conf: line 2: Nodes=: node "n2" is listed under switch "l1"' "a node under two leaves" -- \
    "$ts" topology import-slurm "$tmp/twoleaves.conf"
printf -- '- topology: t\n  tree:\n    switches:\n      - switch: l1\n        nodes: n[1-2]\n      - switch: l2\n        nodes: n2\n' > "$tmp/twoleaves.yaml"
fails 2 'twoleaves.yaml: line 7: [0].tree.switches[1].nodes: node "n2"' "yaml: a node under two leaves" -- \
    "$ts" topology import-slurm-yaml "$tmp/twoleaves.yaml"
printf 'SwitchName=s1 Switches=s2\nSwitchName=s2 Switches=s1\n' > "$tmp/cycle.conf"
fails 2 'cycle.conf: line 2: Switches=: cycle in the switch tree: s1 -> s2 -> s1' "a cycle (conf)" -- \
    "$ts" topology import-slurm "$tmp/cycle.conf"
printf -- '- topology: t\n  tree:\n    switches:\n      - switch: a\n        children: b\n      - switch: b\n        children: a\n' > "$tmp/cycle.yaml"
fails 2 'cycle.yaml: line 7: [0].tree.switches[1].children: cycle in the switch tree: a -> b -> a' \
    "a cycle (yaml children)" -- "$ts" topology import-slurm-yaml "$tmp/cycle.yaml"
fails 2 'nodes.json: no node carries the label "example.com/zone" (levels[0])' "a --levels key no item carries" -- \
    "$ts" topology import-k8s-nodes "$data/nodes.json" --levels example.com/zone,example.com/rack
fails 2 'bad-label-value.json: items[3].metadata.labels["example.com/rack"]: "r 1" is not a valid Kubernetes label value' \
    "a label value with a space" -- "$ts" topology import-k8s-nodes "$data/bad-label-value.json" --levels "$levels"
printf 'BlockName=b1 Nodes=n[1-4]\nBlockName=b2 Nodes=n[5-7]\nBlockSizes=4,8\n' > "$tmp/small.conf"
fails 2 'small.conf: line 2: BlockName= "b2" has 3 nodes, fewer than the first block size 4' \
    "a block smaller than BlockSizes[0]" -- "$ts" topology import-slurm "$tmp/small.conf"
printf -- '- topology: b\n  block:\n    block_sizes: [4]\n    blocks:\n      - block: x\n        nodes: n[1-3]\n' > "$tmp/small.yaml"
fails 2 'small.yaml: line 5: [0].block.blocks[0].block "x" has 3 nodes' "yaml: a block smaller than block_sizes[0]" -- \
    "$ts" topology import-slurm-yaml "$tmp/small.yaml"
printf 'SwitchName=a Nodes=x\nBlockName=b Nodes=y\n' > "$tmp/mixed.conf"
fails 2 'mixed.conf: line 2: BlockName= in a file of the tree form' "tree and block mixed" -- \
    "$ts" topology import-slurm "$tmp/mixed.conf"
fails 2 'bad-duplicate-node.json: items[8].metadata.name: node "gpu01" is listed twice' "a node listed twice" -- \
    "$ts" topology import-k8s-nodes "$data/bad-duplicate-node.json" --levels "$levels"
fails 2 'bad-gpu-count.json: items[2].status.allocatable["nvidia.com/gpu"]: "8k"' "a bad GPU count" -- \
    "$ts" topology import-k8s-nodes "$data/bad-gpu-count.json" --levels "$levels"
printf -- '- topology: t\n  tree: {switches: []}\n' > "$tmp/flow.yaml"
fails 2 'flow.yaml: line 2: [0].tree: flow mappings' "YAML outside the subset" -- \
    "$ts" topology import-slurm-yaml "$tmp/flow.yaml"
fails 2 "--levels: no label key besides kubernetes.io/hostname" "--levels of the hostname only" -- \
    "$ts" topology import-k8s-nodes "$data/nodes.json" --levels kubernetes.io/hostname
fails 2 "--levels[1]: \"nvidia.com/gpu.clique\" is also the NVLink label" "--levels holding --nvl-label" -- \
    "$ts" topology import-k8s-nodes "$data/nodes.json" --levels example.com/rack,nvidia.com/gpu.clique
printf 'kind: Topology\nspec:\n  levels:\n  - nodeLabel: rack\n  - name: x\n' > "$tmp/kq.yaml"
fails 2 'kq.yaml: line 5: spec.levels[1].nodeLabel' "a bad Kueue Topology" -- \
    "$ts" topology import-k8s-nodes "$data/nodes.json" --kueue-topology "$tmp/kq.yaml"
fails 2 "exactly one of --levels" "both --levels and --kueue-topology" -- \
    "$ts" topology import-k8s-nodes "$data/nodes.json" --levels a --kueue-topology "$data/kueue-topology.yaml"
fails 2 "exactly one of --levels" "neither --levels nor --kueue-topology" -- \
    "$ts" topology import-k8s-nodes "$data/nodes.json"
fails 2 "--levels: 'a,,b'" "an empty key in --levels" -- \
    "$ts" topology import-k8s-nodes "$data/nodes.json" --levels a,,b
fails 2 "missing.json: cannot open" "a missing file" -- \
    "$ts" topology import-k8s-nodes "$tmp/missing.json" --levels a

# ---- --nodes-json and import-slurm-live (issue 24) -----------------------------------------
# The node lists recorded from Slurm 22.05 daemons (tests/data/slurm/README.md): n3 drained,
# n4 down, n8 draining, n13 maintenance, n14 failed; n0 n1 allocated, n2 1 GPU used, n9 3.
sl=$2/slurm
live='sorted(d["state"]["down"]) == sorted(["n3","n4","n8","n13","n14"]) and d["state"]["free_gpus"] == {"n0":0,"n1":0,"n2":7,"n8":0,"n9":5} and all(n["gpus"] == 8 for n in d["nodes"])'
for f in nodes-22.05.json sinfo-22.05.json; do
    expect 0 "--nodes-json $f" -- "$ts" topology import-slurm "$sl/topology-16.conf" --nodes-json "$sl/$f" -o "$tmp/live.json"
    loads "$tmp/live.json" "--nodes-json $f"
    shape "$tmp/live.json" "--nodes-json $f" "$live"
done
printf -- '- topology: t\n  tree:\n    switches:\n      - switch: leaf0\n        nodes: n[0-7]\n      - switch: leaf1\n        nodes: n[8-15]\n      - switch: top\n        children: leaf[0-1]\n' > "$tmp/t16.yaml"
expect 0 "import-slurm-yaml --nodes-json" -- "$ts" topology import-slurm-yaml "$tmp/t16.yaml" --nodes-json "$sl/sinfo-22.05.json" -o "$tmp/live-yaml.json"
shape "$tmp/live-yaml.json" "import-slurm-yaml --nodes-json" "$live"
# '-' reads the node list from standard input: the same document
if "$ts" topology import-slurm "$sl/topology-16.conf" --nodes-json - < "$sl/sinfo-22.05.json" > "$tmp/live-stdin.json" 2> "$tmp/err" &&
    cmp -s "$tmp/live-stdin.json" "$tmp/live.json"; then ok; else bad "--nodes-json -: not the document of the file form"; fi
if "$ts" topology import-slurm - --nodes-json "$sl/sinfo-22.05.json" < "$sl/topology-16.conf" > "$tmp/live-stdin2.json" 2> "$tmp/err" &&
    cmp -s "$tmp/live-stdin2.json" "$tmp/live.json"; then ok; else bad "FILE - with --nodes-json FILE2: not the same document"; fi
printf '{"nodes":[{"name":"n1","gres":8}]}' > "$tmp/badgres.json"
fails 2 "badgres.json: nodes[0].gres: expected a string, got integer" "--nodes-json: a gres of the wrong type" -- \
    "$ts" topology import-slurm "$sl/topology-16.conf" --nodes-json "$tmp/badgres.json"
fails 2 "badgres.json: nodes[0].gres: expected a string" "import-slurm-yaml --nodes-json: a bad node list" -- \
    "$ts" topology import-slurm-yaml "$tmp/t16.yaml" --nodes-json "$tmp/badgres.json"
printf '{"nodes":[{"name":"n1","gres":"gpu:a100:99999999999999999999"}]}' > "$tmp/huge.json"
fails 2 'huge.json: nodes[0].gres: "gpu:a100:99999999999999999999" names more than' "--nodes-json: a huge GPU count" -- \
    "$ts" topology import-slurm "$sl/topology-16.conf" --nodes-json "$tmp/huge.json"
printf '{"nodes":[' > "$tmp/trunc.json"
fails 2 "trunc.json: line 1" "--nodes-json: not JSON" -- \
    "$ts" topology import-slurm "$sl/topology-16.conf" --nodes-json "$tmp/trunc.json"
fails 2 "missing.json: cannot open" "--nodes-json: a missing file" -- \
    "$ts" topology import-slurm "$sl/topology-16.conf" --nodes-json "$tmp/missing.json"
fails 2 "FILE and --nodes-json cannot both be standard input" "--nodes-json - with FILE -" -- \
    "$ts" topology import-slurm - --nodes-json -
fails 2 "bad_cycle.conf: line" "a bad topology.conf is still named with --nodes-json" -- \
    "$ts" topology import-slurm "$sl/bad_cycle.conf" --nodes-json "$sl/sinfo-22.05.json"
# import-slurm-live runs `topo-sched-slurm state ARGS`: $TSCHED_SLURM_PLACER, else next to
# topo-sched, else on PATH
mkdir -p "$tmp/bin"
printf '#!/bin/sh\necho "placer: $*"\nexit ${FAKE_EXIT:-0}\n' > "$tmp/bin/topo-sched-slurm"
chmod +x "$tmp/bin/topo-sched-slurm"
expect 0 "import-slurm-live through TSCHED_SLURM_PLACER" -- env TSCHED_SLURM_PLACER="$tmp/bin/topo-sched-slurm" \
    "$ts" topology import-slurm-live --topology x.conf --compact -o out.json
has "$tmp/out" "placer: state --topology x.conf --compact -o out.json" "import-slurm-live: the arguments passed through"
expect 0 "import-slurm-live on PATH" -- env -u TSCHED_SLURM_PLACER PATH="$tmp/bin:/usr/bin:/bin" \
    "$ts" topology import-slurm-live --gpus-per-node 4
has "$tmp/out" "placer: state --gpus-per-node 4" "import-slurm-live on PATH: the arguments"
expect 3 "import-slurm-live: the placer's exit status" -- env FAKE_EXIT=3 TSCHED_SLURM_PLACER="$tmp/bin/topo-sched-slurm" \
    "$ts" topology import-slurm-live
fails 2 "import-slurm-live: topo-sched-slurm not found (built only where Slurm's libslurm is installed)" \
    "import-slurm-live without the placer" -- env -u TSCHED_SLURM_PLACER PATH="$tmp/nowhere" "$ts" topology import-slurm-live
fails 2 "TSCHED_SLURM_PLACER=$tmp/none: cannot run" "import-slurm-live: TSCHED_SLURM_PLACER names nothing" -- \
    env TSCHED_SLURM_PLACER="$tmp/none" "$ts" topology import-slurm-live
expect 0 "import-slurm-live --help" -- env TSCHED_SLURM_PLACER="$tmp/bin/topo-sched-slurm" "$ts" topology import-slurm-live --help
has "$tmp/out" "usage: topo-sched topology import-slurm-live" "import-slurm-live --help: its own text"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]

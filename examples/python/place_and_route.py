#!/usr/bin/env python3
"""A scheduler's decision loop in Python with the topo_sched package.

Loads a fabric, takes the queued jobs in order, places each one (the MIP), marks the GPUs
it took as used, turns its data-parallel ring into flows and routes them; a job that does
not fit waits (the library says so with an InfeasibleError).

Runs as it is, either from a build tree, through meson's developer environment (which puts
the package and the just-built library on the search paths):

    meson devenv -C build -w . python3 examples/python/place_and_route.py

or after `meson install`, with the interpreter the package was installed for (the one
`meson setup` shows under "Python binding"; the installed package finds the installed
library itself):

    python3 examples/python/place_and_route.py

Usage: place_and_route.py [FABRIC.json]    (default: a generated 256-node clos3 fabric)
"""
import sys

import topo_sched as ts

FABRIC = {
    "format": "tsched.topology.v1", "name": "example",
    "generate": {"kind": "clos3", "pods": 4, "leaves_per_pod": 8, "spines_per_pod": 8, "cores": 8,
                 "nodes_per_leaf": 8, "gpus_per_node": 8, "nic_gbps": 400, "gpu_type": "H800"},
}

QUEUE = [
    {"format": "tsched.job.v1", "name": "llm-a", "gpus": 512, "tp": 8, "pp": 4, "alpha": 0.3},
    {"format": "tsched.job.v1", "name": "bert", "gpus": 64, "tp": 8, "pp": 1},
    {"format": "tsched.job.v1", "name": "too-big", "gpus": 4096, "tp": 8, "pp": 8},
    {"format": "tsched.job.v1", "name": "llm-b", "gpus": 1024, "tp": 8, "pp": 8, "alpha": 0.7},
]


def main():
    if len(sys.argv) > 1:
        topo = ts.Topology.load(sys.argv[1])
    else:
        topo = ts.Topology.from_json(FABRIC)
    with topo:
        print("libtopo-sched %s; fabric %s" % (ts.library_version(), topo.summary()["name"]))
        gpus_of = {n["name"]: n["gpus"] for n in topo.to_json()["nodes"]}
        free_before = topo.summary()["free_gpus"]
        taken, placed_gpus = set(), 0
        for job in QUEUE:
            try:
                pl = ts.place(topo, job, algo="mip", time_limit_ms=5000)
            except ts.InfeasibleError as err:  # no feasible placement now: the job waits
                print("%-8s waits: %s" % (job["name"], err))
                continue
            nodes = [a["node"] for a in pl["assignment"]]
            per_node = job["gpus"] // len(nodes)
            for node in nodes:  # the job's GPUs are now in use
                assert node not in taken, "node %s placed twice" % node
                taken.add(node)
                topo.set_free_gpus(node, gpus_of[node] - per_node)
            placed_gpus += job["gpus"]
            flows = ts.flows(topo, pl, pattern="dp-ring", gbits=10)
            routes = ts.route(topo, flows, algo="greedy")
            print("%-8s %d x %d nodes, %d pods, weighted spread %.2f; %d ring flows, at most %d on one trunk, "
                  "slowest %.1f Gbit/s" % (job["name"], pl["rows"], pl["cols"], pl["pods_used"],
                                           pl["spread"]["weighted"], len(flows["flows"]),
                                           routes["max_link_flows"], routes["min_rate_gbps"]))
        free_after = topo.summary()["free_gpus"]
        print("free GPUs: %d -> %d" % (free_before, free_after))
        return 0 if free_after == free_before - placed_gpus and placed_gpus > 0 else 1


if __name__ == "__main__":
    sys.exit(main())

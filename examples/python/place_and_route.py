#!/usr/bin/env python3
"""libtopo-sched from Python through ctypes: the way a Python scheduler (or a Kubernetes
extender written in Python) would call it without bindings.

Generates a clos3 fabric, places a 2944-GPU job with the MIP, turns its ring all-reduce into
flows and routes them with greedy. Usage: place_and_route.py [path/to/libtopo-sched.so.0]
"""
import ctypes as C
import sys

lib = C.CDLL(sys.argv[1] if len(sys.argv) > 1 else "libtopo-sched.so.0")

# Struct layouts mirror include/topo-sched/topology.h and placement.h; `size` first, so
# an older caller is told apart from a newer one.
class GenParams(C.Structure):
    _fields_ = [("size", C.c_size_t), ("kind", C.c_int), ("name", C.c_char_p),
                ("leaves", C.c_uint32), ("spines", C.c_uint32), ("pods", C.c_uint32),
                ("leaves_per_pod", C.c_uint32), ("spines_per_pod", C.c_uint32), ("cores", C.c_uint32),
                ("nodes_per_leaf", C.c_uint32), ("gpus_per_node", C.c_uint32), ("nics_per_node", C.c_uint32),
                ("uplinks", C.c_uint32), ("nic_gbps", C.c_double), ("oversubscription", C.c_double),
                ("gpu_type", C.c_char_p)]

class PlaceOptions(C.Structure):
    _fields_ = [("size", C.c_size_t), ("algo", C.c_int), ("alpha", C.c_double), ("unit", C.c_int),
                ("domain", C.c_int), ("seed", C.c_uint64), ("time_limit_ms", C.c_uint32),
                ("gpus_per_node", C.c_uint32), ("nodes", C.POINTER(C.c_uint32)), ("num_nodes", C.c_uint32)]

P = C.c_void_p
lib.tsched_last_error.restype = C.c_char_p
lib.tsched_placement_nodes.restype = C.POINTER(C.c_uint32)
lib.tsched_placement_weighted.restype = C.c_double
lib.tsched_routes_min_rate.restype = C.c_double
lib.tsched_topology_node_name.restype = C.c_char_p
for fn in ("tsched_topology_free", "tsched_job_free", "tsched_placement_free", "tsched_flows_free",
           "tsched_routes_free"):
    getattr(lib, fn).argtypes = [P]


def check(status, what):
    if status != 0:
        raise RuntimeError("%s: %s" % (what, lib.tsched_last_error().decode()))


params = GenParams()
lib.tsched_topology_params_init(C.byref(params), 1)  # TSCHED_GEN_CLOS3
assert params.size == C.sizeof(GenParams), "struct layout differs from the library's"
params.pods, params.leaves_per_pod, params.spines_per_pod, params.cores = 8, 16, 8, 16
params.gpu_type = b"H800"
topo = P()
check(lib.tsched_topology_generate(C.byref(topo), C.byref(params)), "generate")

job = P()
check(lib.tsched_job_new(C.byref(job), b"llm", 2944, 8, 8), "job")
check(lib.tsched_job_set_alpha(job, C.c_double(0.3)), "alpha")
opts = PlaceOptions()
lib.tsched_place_options_init(C.byref(opts))
assert opts.size == C.sizeof(PlaceOptions), "struct layout differs from the library's"
pl = P()
check(lib.tsched_place(C.byref(pl), topo, job, C.byref(opts)), "place")
rows, cols = lib.tsched_placement_rows(pl), lib.tsched_placement_cols(pl)
print("placed %d x %d nodes, weighted spread %.2f, dp_max %d, pp_max %d" % (
    rows, cols, lib.tsched_placement_weighted(pl), lib.tsched_placement_dp_max(pl), lib.tsched_placement_pp_max(pl)))
first = lib.tsched_placement_node(pl, 0, 0)
print("rank 0 runs on", lib.tsched_topology_node_name(topo, first).decode())

flows = P()
check(lib.tsched_flows_new(C.byref(flows)), "flows")
check(lib.tsched_flows_collective(flows, topo, None, lib.tsched_placement_nodes(pl), rows, cols, 0, 0,
                                  C.c_double(10.0)), "dp-ring flows")
routes = P()
check(lib.tsched_route(C.byref(routes), topo, flows, None), "route")
nflows = lib.tsched_flows_count(flows)
mlf = lib.tsched_routes_max_link_flows(routes)
print("routed %d flows: at most %d on one trunk, slowest %.1f Gbit/s" % (nflows, mlf, lib.tsched_routes_min_rate(routes)))

# a scheduler would now launch the job; here the answers are checked instead
ok = rows == 46 and cols == 8 and nflows == 46 * 8 * 8 and mlf >= 1

for fn, h in (("tsched_routes_free", routes), ("tsched_flows_free", flows), ("tsched_placement_free", pl),
              ("tsched_job_free", job), ("tsched_topology_free", topo)):
    getattr(lib, fn)(h)
sys.exit(0 if ok else 1)

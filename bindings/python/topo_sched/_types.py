# libtopo-sched: network-topology-aware scheduling for GPU clusters.
# Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
"""The shapes of the main results, for type checkers (mypy, pyright) and readers.

The calls return plain ``dict``s, equal to what the ``topo-sched`` command prints; these
``TypedDict``s only describe them (a ``TypedDict`` is a ``dict`` at run time, so ``pl["rows"]``,
``json.dumps(pl)`` and ``pl == other_dict`` keep working). Keys a result may lack (``solve_ms``
with ``no_timing=True``, ``links`` without ``links_report``, ...) are in a ``total=False``
part. The field lists follow doc/FORMATS.md; the package's tests check real results against
them key by key.
"""

from typing import Any, Dict, List, Mapping, Optional, Sequence, TypedDict, Union

#: A JSON document given to a call: a dict (or another JSON value), or its text.
Document = Union[Mapping[str, Any], Sequence[Any], str, bytes]
#: The text of a file in a foreign format (topology.conf, a pod CSV, ...).
Text = Union[str, bytes]


# ---- tsched.topology-summary.v1 (Topology.summary()) -------------------------------------

class _DownRequired(TypedDict):
    nodes: List[str]
    switches: List[str]
    trunks: List[str]


class Down(_DownRequired, total=False):
    members: List[str]  # only when a member link is down


class TopologySummary(TypedDict):
    """``tsched.topology-summary.v1``: what ``Topology.summary()`` and ``topology show`` give."""
    format: str
    name: str
    nodes: int
    gpus: int
    free_gpus: int
    up_nodes: int
    free_nodes: int
    switches: Dict[str, int]  # "leaf", "spine", "core", and "tier3".."tier7" when used
    tiers: List[int]
    pods: int
    nvl_domains: int
    trunks: int
    down: Down


# ---- tsched.placement.v1 (place) ---------------------------------------------------------

class Spread(TypedDict):
    dp_max: int
    pp_max: int
    weighted: float


class Assignment(TypedDict):
    row: int
    col: int
    node: str
    rank: int


class _PlacementRequired(TypedDict):
    format: str
    job: str
    algorithm: str
    status: str  # "optimal" or "feasible"
    rows: int
    cols: int
    alpha: float
    beta: float
    domain: str  # "pod", "leaf" or "nvl"
    spread: Spread
    pods_used: int
    assignment: List[Assignment]  # in rank order


class PlacementResult(_PlacementRequired, total=False):
    """``tsched.placement.v1``: what :func:`place` returns (``topo-sched place``)."""
    solve_ms: float  # left out with no_timing=True


# ---- tsched.flows.v1 (flows) -------------------------------------------------------------

class _FlowRequired(TypedDict):
    src: str
    dst: str
    src_nic: int
    dst_nic: int
    gbits: float


class Flow(_FlowRequired, total=False):
    job: str


class FlowsResult(TypedDict):
    """``tsched.flows.v1``: what :func:`flows` returns (``topo-sched flows``)."""
    format: str
    flows: List[Flow]


# ---- tsched.routes.v1 (route) ------------------------------------------------------------

class _RouteRequired(TypedDict):
    index: int
    hops: List[str]  # switch names; empty when both NICs share a leaf


class Route(_RouteRequired, total=False):
    rate_gbps: float


class _RoutesRequired(TypedDict):
    format: str
    algorithm: str
    status: str  # "ok", "optimal" or "feasible"
    moved: int
    flows: List[Route]


class RoutesResult(_RoutesRequired, total=False):
    """``tsched.routes.v1``: what :func:`route` returns (``topo-sched route``)."""
    max_link_flows: int
    min_rate_gbps: float
    solve_ms: float  # left out with no_timing=True


# ---- tsched.simresult.v1 (simulate) ------------------------------------------------------

class SimWindow(TypedDict):
    from_s: float
    to_s: Optional[float]


class _SimSummaryRequired(TypedDict):
    jobs: int
    jobs_done: int
    avg_jct_s: Optional[float]  # None when no job finished
    avg_wait_s: Optional[float]
    avg_run_s: Optional[float]
    makespan_s: float
    gpu_util: float
    gpu_util_alloc: float
    gbits_demanded: float
    gbits_delivered: float
    events: int
    rate_updates: int
    components: int  # flow components whose rates were recomputed (doc/sim.md 3.3)
    component_flows_max: int
    component_flows_mean: float
    waits_gpu: int
    waits_network: int
    waits_timeout: int
    waits_queue: int


class SimSummary(_SimSummaryRequired, total=False):
    crius_events: int  # placement "crius" only


class _SimJobRequired(TypedDict):
    name: str
    gpus: int
    level: int
    nodes: List[str]
    arrival_s: float
    start_s: Optional[float]
    finish_s: Optional[float]
    wait_s: Optional[float]
    run_s: Optional[float]
    jct_s: Optional[float]
    iterations: int
    iterations_done: int
    iter_mean_s: Optional[float]
    iter_min_s: Optional[float]
    iter_max_s: Optional[float]
    iter_alone_s: Optional[float]
    compute_s: float
    restarts: int
    gbits_demanded: float
    gbits_delivered: float
    wait_cause: Optional[str]  # None, "gpu", "network", "timeout" or "queue"


class SimJob(_SimJobRequired, total=False):
    node_gpus: List[int]  # placement "crius" only
    cell: Optional[Dict[str, Any]]


class SimLink(TypedDict):
    a: str
    b: str
    member: Optional[int]
    gbps: float
    mean_util: float
    busy_frac: float


class _SimResultRequired(TypedDict):
    format: str
    scenario: str
    status: str  # "done", "until" or "stalled"
    end_s: float
    window: SimWindow
    summary: SimSummary
    jobs: List[SimJob]


class SimResult(_SimResultRequired, total=False):
    """``tsched.simresult.v1``: what :func:`simulate` returns (``topo-sched simulate``)."""
    links: List[SimLink]  # with links_report=True
    wall_ms: float  # left out with no_timing=True

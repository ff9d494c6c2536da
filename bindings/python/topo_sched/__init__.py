# libtopo-sched: network-topology-aware scheduling for GPU clusters.
# Copyright (C) 2026 The libtopo-sched authors. GPL-3.0-or-later.
"""Python bindings of libtopo-sched over ctypes.

The package is pure Python: it loads the shared library ``libtopo-sched.so.0`` at import
time, in this order:

1. the path in the environment variable ``TOPO_SCHED_LIBRARY``, when it is set;
2. ``libtopo-sched.so.0`` through the dynamic loader (``LD_LIBRARY_PATH``, ldconfig);
3. the library directory recorded at install time in ``topo_sched/_paths.py``.

Documents are passed and returned as JSON: a document argument may be a ``dict`` (or
another JSON value), a ``str`` or ``bytes`` holding JSON, or, where the call takes one, a
:class:`Topology` or :class:`Job` handle. Results are the ``dict`` the ``topo-sched``
command prints for the same inputs. Keyword arguments are the command's long options with
dashes written as underscores (``time_limit_ms=100`` is ``--time-limit-ms 100``; a flag is
``no_timing=True``; ``None`` and ``False`` leave an option out). One option given under two
spellings (``time_limit_ms=1, **{"time-limit-ms": 2}``) is a :class:`TopoSchedError` naming
both; a keyword the call does not take is a ``TypeError`` (:class:`UnknownOptionError`), as for
any Python function.

Foreign formats: :meth:`Topology.import_slurm`, :meth:`Topology.import_slurm_yaml` and
:meth:`Topology.import_k8s_nodes` read a cluster's own description (the ``topology import-*``
commands), :meth:`Topology.export` writes one for Slurm, Kueue, KAI or Volcano (``topology
export``; its warning goes through the :mod:`warnings` module as :class:`ExportWarning`), and
``place(..., hostfile=True, pod_order=True)`` returns the launch files too (a
:class:`Placement`).

Traces: :func:`trace_convert_alibaba`, :func:`trace_convert_dcn` and :func:`trace_poisson`
call the library's ``tsched_trace_*`` functions directly and return the ``tsched.trace.v1``
document as text, byte for byte what ``topo-sched trace`` writes for the same inputs and
options (``json.loads`` it for a dict).

Every failure raises a :class:`TopoSchedError`, whose ``status`` is the library's
``tsched_status`` number (``status_name`` its name) and whose text is the library's one-line
message naming the offending field; the class raised is the status's family
(:class:`InvalidInputError`, :class:`NotFoundError`, :class:`InfeasibleError`, ...).

Results are plain dicts; their shapes are typed (:class:`PlacementResult`,
:class:`RoutesResult`, :class:`SimResult`, ... in ``topo_sched._types``) for type checkers,
and the package ships ``py.typed``.

Linking or loading libtopo-sched brings its licence, GPL-3.0-or-later, with it: a program
that imports this package forms one work with the library.
"""

from __future__ import annotations

import ctypes as _C
import itertools as _itertools
import json as _json
import math as _math
import os as _os
import re as _re
import threading as _threading
import warnings as _warnings
from typing import Any, Dict, Mapping, Optional, Type, TypeVar, Union

from ._types import (Assignment, Document, Down, Flow, FlowsResult, PlacementResult, Route, RoutesResult, SimJob,
                     SimLink, SimResult, SimSummary, SimWindow, Spread, Text, TopologySummary)

__version__ = "0.1.0"

__all__ = [
    "TopoSchedError", "InvalidInputError", "NotFoundError", "InfeasibleError", "TimeLimitError", "ResourceError",
    "FileAccessError", "SolverError", "InternalError", "UnknownOptionError", "error_class", "ExportWarning",
    "Document", "Text", "TopologySummary", "Down", "PlacementResult", "Spread", "Assignment", "FlowsResult", "Flow",
    "RoutesResult", "Route", "SimResult", "SimSummary", "SimJob", "SimLink", "SimWindow",
    "Topology", "Job", "Placement", "library_version", "status_name", "STATUS",
    "place", "flows", "route", "prioritize", "kcut", "vclos", "cells", "crius_schedule", "simulate",
    "trace_convert_alibaba", "trace_convert_dcn", "trace_poisson",
]

_SONAME = "libtopo-sched.so.0"


def _load_library():
    path = _os.environ.get("TOPO_SCHED_LIBRARY")
    if path:
        try:
            return _C.CDLL(path)
        except OSError as exc:
            raise ImportError("topo_sched: cannot load TOPO_SCHED_LIBRARY=%s: %s" % (path, exc)) from exc
    tried = []
    try:
        return _C.CDLL(_SONAME)
    except OSError as exc:
        tried.append("%s through the dynamic loader (%s)" % (_SONAME, exc))
    try:
        from . import _paths
        libdir = _paths.LIBDIR
    except ImportError:
        libdir = None
    if libdir:
        full = _os.path.join(libdir, _SONAME)
        try:
            return _C.CDLL(full)
        except OSError as exc:
            tried.append("%s (%s)" % (full, exc))
    else:
        tried.append("no install libdir recorded (topo_sched/_paths.py absent)")
    raise ImportError("topo_sched: cannot find libtopo-sched; set TOPO_SCHED_LIBRARY to the path of "
                      "libtopo-sched.so.0 or LD_LIBRARY_PATH to its directory. Tried: " + "; ".join(tried))


_lib = _load_library()

_P = _C.c_void_p
_PP = _C.POINTER(_C.c_void_p)
_U32 = _C.c_uint32


def _proto(name, restype, *argtypes):
    fn = getattr(_lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)
    return fn


_version = _proto("tsched_version", _C.c_char_p)
_last_error = _proto("tsched_last_error", _C.c_char_p)
_status_str = _proto("tsched_status_str", _C.c_char_p, _C.c_int)
_free = _proto("tsched_free", None, _P)
_topo_load_string = _proto("tsched_topology_load_string", _C.c_int, _PP, _C.c_char_p, _C.c_size_t)
_topo_load_file = _proto("tsched_topology_load_file", _C.c_int, _PP, _C.c_char_p)
_topo_free = _proto("tsched_topology_free", None, _P)
_topo_to_json = _proto("tsched_topology_to_json", _C.c_int, _PP, _P)
_topo_summary = _proto("tsched_topology_summary_json", _C.c_int, _PP, _P)
_topo_find_node = _proto("tsched_topology_find_node", _U32, _P, _C.c_char_p)
_topo_set_free = _proto("tsched_topology_set_free_gpus", _C.c_int, _P, _U32, _U32)
_topo_set_up = _proto("tsched_topology_set_up", _C.c_int, _P, _C.c_char_p, _C.c_int)
_job_load_string = _proto("tsched_job_load_string", _C.c_int, _PP, _C.c_char_p, _C.c_size_t)
_job_load_file = _proto("tsched_job_load_file", _C.c_int, _PP, _C.c_char_p)
_job_free = _proto("tsched_job_free", None, _P)
_job_to_json = _proto("tsched_job_to_json", _C.c_int, _PP, _P)


def _service_fns():
    # Looked up at first use so that the rest of the package works with a library that
    # predates the service module.
    return (_proto("tsched_service_new", _C.c_int, _PP),
            _proto("tsched_service_free", None, _P),
            _proto("tsched_service_handle", _C.c_int, _PP, _C.POINTER(_C.c_int), _P, _C.c_char_p, _C.c_size_t),
            _proto("tsched_service_attach", _C.c_int, _P, _C.c_char_p, _P),
            _proto("tsched_service_detach", _C.c_int, _P, _C.c_char_p))


_NONE = 0xFFFFFFFF
_E_INVALID = 2
_E_PARSE = 3
_E_FORMAT = 4
_E_TYPE = 5
_E_RANGE = 6
_E_NOT_FOUND = 7
_E_STATE = 12
_E_INTERNAL = 18

#: Status numbers by name ("TSCHED_E_PARSE" -> 3), read from the library.
STATUS = {}
for _n in range(0, 256):
    _s = _status_str(_n).decode()
    if _s != "TSCHED_E_UNKNOWN":
        STATUS[_s] = _n
_STATUS_NAMES = {n: s for s, n in STATUS.items()}


def status_name(status: int) -> str:
    """The constant name of a status number (3 -> "TSCHED_E_PARSE"), as tsched_status_str."""
    return _STATUS_NAMES.get(status, "TSCHED_E_UNKNOWN")


class TopoSchedError(Exception):
    """A failure reported by libtopo-sched: the base class of the package's errors.

    ``status`` is the ``tsched_status`` number, ``status_name`` its constant name,
    ``exit`` the exit status the ``topo-sched`` command gives for it (None for the
    handle calls, which do not go through the command's rules), and ``str(err)`` the
    library's one-line message. What is raised is one subclass per status family
    (:class:`InvalidInputError`, :class:`NotFoundError`, :class:`InfeasibleError`,
    :class:`TimeLimitError`, :class:`ResourceError`, :class:`FileAccessError`,
    :class:`SolverError`, :class:`InternalError`); ``except TopoSchedError`` catches them all.
    """

    status: int
    status_name: str
    message: str
    exit: Optional[int]

    def __init__(self, status: int, message: str, exit: Optional[int] = None) -> None:
        super().__init__(message)
        self.status = status
        self.status_name = status_name(status)
        self.message = message
        self.exit = exit

    def __repr__(self) -> str:
        return "%s(%s, %r)" % (type(self).__name__, self.status_name, self.message)

    def __reduce__(self):  # type: ignore[override]
        return (type(self), (self.status, self.message, self.exit))


class InvalidInputError(TopoSchedError):
    """The input is wrong: malformed text (``TSCHED_E_PARSE``), an unknown format or value
    (``FORMAT``), a wrong JSON type (``TYPE``), a number out of range (``RANGE``), an invalid
    argument (``INVALID``), a name defined twice (``DUPLICATE``), a cycle (``CYCLE``), a handle
    in the wrong state (``STATE``) or a result used with another fabric (``MISMATCH``). The
    command exits 2."""


class NotFoundError(TopoSchedError):
    """A name refers to nothing (``TSCHED_E_NOT_FOUND``): a node, switch or link the fabric
    does not have, or a required field a document lacks. The command exits 2."""


class InfeasibleError(TopoSchedError):
    """The request has no answer now (``TSCHED_E_INFEASIBLE``: too few free GPUs,
    ``TSCHED_E_NO_PATH``: two endpoints with no surviving path). The command exits 1: a
    scheduler lets the job wait."""


class TimeLimitError(TopoSchedError):
    """A time limit ran out before any answer was found (``TSCHED_E_TIMEOUT``). The command
    exits 3."""


class ResourceError(TopoSchedError):
    """Memory or a size limit (``TSCHED_E_NOMEM``, ``TSCHED_E_TOO_LARGE`` naming the limit of
    ``tsched_limits_set``, ``TSCHED_E_BUFFER``)."""


class FileAccessError(TopoSchedError):
    """A file could not be read or written (``TSCHED_E_IO``, e.g. :meth:`Topology.load`)."""


class SolverError(TopoSchedError):
    """The MIP/ILP solver failed (``TSCHED_E_SOLVER``). The command exits 3."""


class InternalError(TopoSchedError):
    """A bug in the library (``TSCHED_E_INTERNAL``): please report it. The command exits 3."""


class UnknownOptionError(InvalidInputError, TypeError):
    """A keyword argument that is not an option of the call. A ``TypeError``, as a Python
    function raises for an unexpected keyword argument, and an :class:`InvalidInputError`
    (status ``TSCHED_E_FORMAT``, as the service answers an unknown option)."""


_FAMILIES = {
    InvalidInputError: ("TSCHED_E_INVALID", "TSCHED_E_PARSE", "TSCHED_E_FORMAT", "TSCHED_E_TYPE", "TSCHED_E_RANGE",
                        "TSCHED_E_DUPLICATE", "TSCHED_E_CYCLE", "TSCHED_E_STATE", "TSCHED_E_MISMATCH"),
    NotFoundError: ("TSCHED_E_NOT_FOUND",),
    InfeasibleError: ("TSCHED_E_INFEASIBLE", "TSCHED_E_NO_PATH"),
    TimeLimitError: ("TSCHED_E_TIMEOUT",),
    ResourceError: ("TSCHED_E_NOMEM", "TSCHED_E_TOO_LARGE", "TSCHED_E_BUFFER"),
    FileAccessError: ("TSCHED_E_IO",),
    SolverError: ("TSCHED_E_SOLVER",),
    InternalError: ("TSCHED_E_INTERNAL",),
}
_CLASS_OF = {STATUS[name]: cls for cls, names in _FAMILIES.items() for name in names if name in STATUS}


def error_class(status: int) -> Type[TopoSchedError]:
    """The exception class raised for a status number (its family; :class:`TopoSchedError`
    for a number the library does not define)."""
    return _CLASS_OF.get(status, TopoSchedError)


def _error(status: int, message: str, exit: Optional[int] = None) -> TopoSchedError:
    return error_class(status)(status, message, exit)


class ExportWarning(UserWarning):
    """The warning line of :meth:`Topology.export` (what ``topo-sched topology export`` prints on
    standard error, e.g. NVLink domains that nest nowhere in the domain tree and were left out).
    The export itself succeeded; ``warnings.simplefilter("error", ExportWarning)`` makes it fail."""


def _raise_last(status):
    raise _error(status, (_last_error() or b"").decode("utf-8", "replace"))


def _check(status):
    if status != 0:
        _raise_last(status)


def _take_string(ptr):
    try:
        return _C.string_at(ptr.value).decode("utf-8")
    finally:
        _free(ptr)


def library_version() -> str:
    """Version of the library actually loaded, "MAJOR.MINOR.PATCH" (tsched_version)."""
    return _version().decode()


def _doc_bytes(doc, what):
    """A document argument as the JSON text the library's loaders read."""
    if isinstance(doc, bytes):
        return doc
    if isinstance(doc, str):
        return doc.encode("utf-8")
    if isinstance(doc, (dict, list)):
        try:
            return _json.dumps(doc, allow_nan=False).encode("utf-8")
        except ValueError as exc:
            raise _error(_E_PARSE, "%s: %s" % (what, exc)) from None
    raise TypeError("%s: expected a dict, str or bytes holding JSON, not %s" % (what, type(doc).__name__))


def _c_name(value, what):
    """A name for the C library: UTF-8 without NUL bytes (C would stop at the first one and
    act on another element)."""
    data = str(value).encode("utf-8", "strict") if not isinstance(value, bytes) else value
    if b"\0" in data:
        raise _error(_E_INVALID, "%s: %r holds a NUL byte" % (what, value))
    return data


def _c_path(path, what):
    data = _os.fsencode(path)
    if b"\0" in data:
        raise _error(_E_INVALID, "%s: path %r holds a NUL byte" % (what, path))
    return data


def _no_duplicates(pairs):
    obj = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError("duplicate object key %r" % key)
        obj[key] = value
    return obj


def _no_constant(name):
    raise ValueError("%s is not JSON" % name)


def _finite_float(text):
    value = float(text)
    if not _math.isfinite(value):
        raise ValueError("real number overflow: %s" % text)
    return value


def _doc_value(doc, what):
    """A document argument as a JSON value to put into a service request."""
    if isinstance(doc, (Topology, Job)):
        return doc.to_json()
    if isinstance(doc, (bytes, str)):
        # read as the library reads it: duplicate keys and NaN / Infinity refused
        try:
            return _json.loads(doc, object_pairs_hook=_no_duplicates, parse_constant=_no_constant,
                               parse_float=_finite_float)
        except ValueError as exc:
            raise _error(_E_PARSE, "%s: not JSON: %s" % (what, exc)) from None
    if isinstance(doc, (dict, list)):
        return doc
    raise TypeError("%s: expected a dict, str or bytes holding JSON, not %s" % (what, type(doc).__name__))


_H = TypeVar("_H", bound="_Handle")


class _Handle:
    """Owns one library handle; freed by close(), by leaving a with block, or by __del__."""

    _free_fn: Any = None
    _what = "handle"

    def __init__(self, handle: Any) -> None:
        self._h = handle
        self._lock = _threading.RLock()

    def __copy__(self):
        # a copy would share the handle: two owners, one free too many
        raise TypeError("%s cannot be copied: use %s.from_json(x.to_json())" % (self._what, self._what))

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __reduce__(self):
        raise TypeError("%s cannot be pickled: pickle its to_json() instead" % self._what)

    def _handle(self):
        if self._h is None:
            raise ValueError("%s is closed" % self._what)
        return self._h

    @property
    def closed(self) -> bool:
        """True once close() ran."""
        return self._h is None

    def close(self) -> None:
        """Free the library handle. A second close() does nothing."""
        with self._lock:
            h, self._h = self._h, None
            if h is not None:
                type(self)._free_fn(h)

    def __enter__(self: _H) -> _H:
        return self

    def __exit__(self, *exc: Any) -> bool:
        self.close()
        return False

    def __del__(self):
        try:
            self.close()
        except Exception:  # interpreter shutdown: the library may be gone already
            pass


class Topology(_Handle):
    """A fabric (``tsched_topology``): loaded from ``tsched.topology.v1``, with its state."""

    _free_fn = staticmethod(_topo_free)
    _what = "Topology"

    @classmethod
    def from_json(cls, doc: Document) -> Topology:
        """Load a ``tsched.topology.v1`` document (dict, str or bytes; ``generate`` allowed)."""
        text = _doc_bytes(doc, "topology")
        h = _P()
        _check(_topo_load_string(_C.byref(h), text, len(text)))
        return cls(h)

    @classmethod
    def load(cls, path: Union[str, bytes, _os.PathLike]) -> Topology:
        """Load a ``tsched.topology.v1`` file; errors name the file and the field."""
        h = _P()
        _check(_topo_load_file(_C.byref(h), _c_path(path, "Topology.load")))
        return cls(h)

    def _string(self, fn):
        with self._lock:
            out = _P()
            _check(fn(_C.byref(out), self._handle()))
            return _json.loads(_take_string(out))

    def summary(self) -> TopologySummary:
        """The ``tsched.topology-summary.v1`` dict of ``topo-sched topology show``."""
        return self._string(_topo_summary)

    def to_json(self) -> Dict[str, Any]:
        """The fabric and its state as an explicit ``tsched.topology.v1`` dict."""
        return self._string(_topo_to_json)

    def set_free_gpus(self, node: str, n: int) -> None:
        """Set the free GPUs of node ``node`` (its name) to ``n``."""
        with self._lock:
            h = self._handle()
            idx = _topo_find_node(h, _c_name(node, "set_free_gpus"))
            if idx == _NONE:
                raise _error(_E_NOT_FOUND, "set_free_gpus: no node named '%s'" % node)
            if isinstance(n, bool) or not isinstance(n, int):
                raise TypeError("set_free_gpus: the GPU count must be an int")
            if n < 0 or n > 0xFFFFFFFF:
                raise _error(6, "set_free_gpus: free GPUs of '%s' out of range: %d" % (node, n))
            _check(_topo_set_free(h, idx, n))

    def set_up(self, name: str, up: bool) -> None:
        """Put a node, switch, trunk (``a~b``) or member link (``a~b#k``) in (True) or out of service."""
        with self._lock:
            _check(_topo_set_up(self._handle(), _c_name(name, "set_up"), 1 if up else 0))

    # ---- foreign formats: one request to the private service, as the topology commands ----

    @classmethod
    def _import(cls, op, fields, options):
        doc = _run(op, None, {}, options, fields=fields, call="Topology." + op.replace("-", "_"))
        return cls.from_json(doc)

    @classmethod
    def import_slurm(cls, text: Text, **options: Any) -> Topology:
        """A fabric from a Slurm ``topology.conf`` (tree or block form, or ``scontrol show
        topology`` output): ``topo-sched topology import-slurm``. ``text`` is the file's text
        (str or bytes). Options: ``gpus_per_node``, ``nics_per_node``, ``nic_gbps``,
        ``gpu_type``, ``name``, ``no_nvl``."""
        return cls._import("import-slurm", {"text": _text(text, "text")}, options)

    @classmethod
    def import_slurm_yaml(cls, text: Text, **options: Any) -> Topology:
        """A fabric from a Slurm ``topology.yaml``: ``topo-sched topology import-slurm-yaml``.
        Options: those of :meth:`import_slurm` and ``topology``, ``nvl_topology``."""
        return cls._import("import-slurm-yaml", {"text": _text(text, "text")}, options)

    @classmethod
    def import_k8s_nodes(cls, nodes: Document, **options: Any) -> Topology:
        """A fabric from Kubernetes nodes: ``topo-sched topology import-k8s-nodes``. ``nodes`` is
        the output of ``kubectl get nodes -o json`` as a dict, a list of Node dicts, or its
        text (str or bytes). Options: ``levels`` (label keys, coarsest first: a list or
        ``"K1,K2"``) or ``kueue_topology`` (a Kueue Topology as text, YAML or JSON, or a
        dict), ``nvl_label``, ``gpu_resource``, ``gpu_type``, ``nics_per_node``,
        ``nic_gbps``, ``name``."""
        if isinstance(nodes, (dict, list)):
            fields = {"nodes": nodes}
        else:
            fields = {"text": _text(nodes, "nodes")}
        return cls._import("import-k8s-nodes", fields, options)

    def export(self, to: str, **options: Any) -> str:
        """The fabric written for another scheduler: exactly the text ``topo-sched topology export
        --to TO`` writes (``slurm-conf``, ``slurm-yaml``, ``kueue``, ``kai``, ``volcano``).
        Options: ``levels`` (a list or ``"K1,K2"``), ``block``, ``physical``, ``kueue_api``,
        ``tier_names``, ``sanitize``, ``format`` (``"yaml"`` or ``"json"``), ``name``. A
        warning of the export (the command's line on standard error) is issued as an
        :class:`ExportWarning` through :mod:`warnings`."""
        options = dict(options, to=to)
        out = _run("export", self, {}, options, call="Topology.export")
        if out.get("warning"):
            _warnings.warn(out["warning"], ExportWarning, stacklevel=2)
        return out["text"]


class Job(_Handle):
    """A job (``tsched_job``) loaded from ``tsched.job.v1``."""

    _free_fn = staticmethod(_job_free)
    _what = "Job"

    @classmethod
    def from_json(cls, doc: Document) -> Job:
        """Load a ``tsched.job.v1`` document (dict, str or bytes)."""
        text = _doc_bytes(doc, "job")
        h = _P()
        _check(_job_load_string(_C.byref(h), text, len(text)))
        return cls(h)

    @classmethod
    def load(cls, path: Union[str, bytes, _os.PathLike]) -> Job:
        """Load a ``tsched.job.v1`` file."""
        h = _P()
        _check(_job_load_file(_C.byref(h), _c_path(path, "Job.load")))
        return cls(h)

    def to_json(self) -> Dict[str, Any]:
        """The job as a ``tsched.job.v1`` dict."""
        with self._lock:
            out = _P()
            _check(_job_to_json(_C.byref(out), self._handle()))
            return _json.loads(_take_string(out))


# ---- the module calls: one request to a private, per-thread service ----------------------

_names = _itertools.count(1)
_local = _threading.local()


class _Service:
    def __init__(self):
        self.new, self.free, self.handle, self.attach, self.detach = _service_fns()
        h = _P()
        _check(self.new(_C.byref(h)))
        self.h = h

    def __del__(self):
        try:
            self.free(self.h)
        except Exception:
            pass


def _service():
    svc = getattr(_local, "service", None)
    if svc is None:
        svc = _local.service = _Service()
    return svc


def _options(options):
    out, spelled = {}, {}
    for key, value in options.items():
        name = key.replace("_", "-")
        # time_limit_ms=1 with **{"time-limit-ms": 2}: one option spelled twice is an error
        # naming both spellings (in sorted order), whatever their values, never a silent pick
        if name in spelled:
            first, second = sorted((spelled[name], key))
            raise _error(_E_INVALID, "options.%s: given twice, as %s and %s; give one" % (name, first, second))
        spelled[name] = key
        if value is None or value is False:
            continue
        if isinstance(value, float) and not _math.isfinite(value):
            raise _error(_E_RANGE, "options.%s: %r is not a finite number" % (name, value))
        if isinstance(value, int) and not isinstance(value, bool) and value > 0x7FFFFFFFFFFFFFFF:
            value = str(value)  # above JSON's int64: the service reads whole numbers as strings too
        out[name] = value
    return out


def _text(text, what):
    if isinstance(text, bytes):
        try:
            return text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _error(_E_PARSE, "%s: not UTF-8 text: %s" % (what, exc)) from None
    if isinstance(text, str):
        return text
    raise TypeError("%s: expected the file's text (str or bytes), not %s" % (what, type(text).__name__))


# The service's answer to an option the op does not take (src/service/service.c, check_fields).
_UNKNOWN_OPTION = _re.compile(r'options\.([^:]+): unknown option for op "')


def _unknown_option(call: str, spelling: str, detail: str, status: int, exit: Optional[int] = None) -> TopoSchedError:
    """The TypeError a Python function raises for a keyword it does not take (with the library's
    message after it)."""
    message = "%s() got an unexpected keyword argument %r (%s)" % (call, spelling, detail)
    return UnknownOptionError(status, message, exit)


def _request(svc, req, whole=False, call=None, options=None):
    try:
        text = _json.dumps(req, allow_nan=False).encode("utf-8")
    except ValueError as exc:  # NaN or Infinity inside a document given as a dict
        raise _error(_E_RANGE, "%s: %s" % (req.get("op", "request"), exc)) from None
    out, stop = _P(), _C.c_int(0)
    _check(svc.handle(_C.byref(out), _C.byref(stop), svc.h, text, len(text)))
    answer = _json.loads(_take_string(out))
    if answer.get("ok"):
        return answer if whole else answer.get("result")
    status = STATUS.get(answer.get("status", ""), _E_INTERNAL)
    message = answer.get("error", "")
    unknown = _UNKNOWN_OPTION.match(message) if call else None
    if unknown:
        key = unknown.group(1)
        spelling = next((k for k in (options or {}) if k.replace("_", "-") == key), key)
        raise _unknown_option(call, spelling, message, status, answer.get("exit"))
    raise _error(status, message, answer.get("exit"))


def _run(op, topo, docs, options, fields=None, whole=False, call=None):
    """Send {"op": op, "topology": <topo>, <docs>, <fields>, "options": options} and return the
    result (the whole answer when `whole`). `call` names the Python call in a TypeError."""
    call = call or op.replace("-", "_")
    req = {"id": 1, "op": op}
    req.update(fields or {})
    for key, (doc, optional) in docs.items():
        if doc is None:
            if not optional:
                raise TypeError("%s: the %s document is required" % (call, key))
            continue
        req[key] = _doc_value(doc, key)
    opts = _options(options)
    if opts:
        req["options"] = opts
    svc = _service()
    if topo is None:
        return _request(svc, req, whole, call, options)
    if not isinstance(topo, Topology):
        raise TypeError("%s: the fabric must be a Topology, not %s" % (call, type(topo).__name__))
    name = "python.%d.%d" % (_os.getpid(), next(_names))
    with topo._lock:
        _check(svc.attach(svc.h, name.encode(), topo._handle()))
        try:
            req["topology"] = name
            return _request(svc, req, whole, call, options)
        finally:
            svc.detach(svc.h, name.encode())


class Placement(dict):
    """The ``tsched.placement.v1`` dict of ``place`` with the launch files it was asked for:
    ``hostfile``, the text ``--hostfile FILE`` writes (one node name per line in rank order,
    or per task with ``hostfile_per_task``), and ``pod_order``, the ``tsched.pod-order.v1``
    dict ``--pod-order FILE`` writes; each None when not asked for."""

    hostfile: Optional[str]
    pod_order: Optional[Dict[str, Any]]

    def __init__(self, doc: Mapping[str, Any], hostfile: Optional[str] = None,
                 pod_order: Optional[Dict[str, Any]] = None) -> None:
        super().__init__(doc)
        self.hostfile = hostfile
        self.pod_order = pod_order


_LAUNCH = ("hostfile", "hostfile_per_task", "tasks_per_node", "pod_order", "index_label")


def place(topo: Topology, job: Union[Job, Document], **options: Any) -> Union[PlacementResult, Placement]:
    """Place a job on the fabric: the ``tsched.placement.v1`` dict of ``topo-sched place``.

    Options: ``algo``, ``alpha``, ``seed``, ``time_limit_ms``, ``no_timing``. Launch files:
    ``hostfile=True`` (with ``hostfile_per_task=True`` and ``tasks_per_node=N``: one line per
    task) and ``pod_order=True`` (with ``index_label``, ``tasks_per_node``); the result is
    then a :class:`Placement`, the same dict with ``.hostfile`` (str) and ``.pod_order``
    (dict). Without them it is a plain dict.
    """
    for key in ("hostfile", "pod_order"):
        if options.get(key) not in (None, False, True):
            raise TypeError("place: %s=True returns the file in the result (the binding writes no files), got %r"
                            % (key, options[key]))
    if not any(options.get(k) not in (None, False) for k in _LAUNCH):
        return _run("place", topo, {"job": (job, False)}, options)
    answer = _run("place", topo, {"job": (job, False)}, options, whole=True)
    return Placement(answer["result"], answer.get("hostfile"), answer.get("pod_order"))


def flows(topo: Topology, placement: Document, job: Union[Job, Document, None] = None,
          **options: Any) -> FlowsResult:
    """The ``tsched.flows.v1`` dict of ``topo-sched flows`` for a placement.

    Options: ``pattern`` (required), ``step``, ``gbits``.
    """
    return _run("flows", topo, {"placement": (placement, False), "job": (job, True)}, options)


def route(topo: Topology, flows: Document, **options: Any) -> RoutesResult:
    """Route flows: the ``tsched.routes.v1`` dict of ``topo-sched route``.

    Options: ``algo``, ``seed``, ``threads``, ``time_limit_ms``, ``no_timing``.
    """
    return _run("route", topo, {"flows": (flows, False)}, options)


def prioritize(topo: Topology, jobset: Document, **options: Any) -> Dict[str, Any]:
    """CRUX priorities of a job set: the document of ``topo-sched prioritize``.

    Options: ``levels`` (required), ``algo``, ``orders``, ``seed``.
    """
    return _run("prioritize", topo, {"jobset": (jobset, False)}, options)


def kcut(dag: Document, **options: Any) -> Dict[str, Any]:
    """Compress a ``tsched.dag.v1`` to K levels: the document of ``topo-sched kcut``.

    Options: ``levels`` (required), ``algo``, ``orders``, ``seed``, ``threads``.
    """
    return _run("kcut", None, {"dag": (dag, False)}, options)


def vclos(topo: Topology, requests: Document, state: Optional[Document] = None, **options: Any) -> Dict[str, Any]:
    """Allocate vClos sub-fabrics: the ``tsched.vclos.v1`` dict of ``topo-sched vclos``.

    ``state`` is an earlier ``tsched.vclos.v1`` result (``--state``). Options: ``mode``,
    ``shapes``, ``pattern``, ``step``, ``routing``, ``seed``, ``time_limit_ms``, ``no_timing``.
    """
    return _run("vclos", topo, {"requests": (requests, False), "state": (state, True)}, options)


def cells(topo: Topology, job: Union[Job, Document], catalog: Optional[Document] = None,
          profile: Optional[Document] = None, **options: Any) -> Dict[str, Any]:
    """Crius Cells of a job: the ``tsched.cells.v1`` dict of ``topo-sched cells``.

    ``catalog`` is a GPU catalog document (the command's ``-c GPUS``), ``profile`` a profile
    document (``--profile``). Options: ``type``, ``gpus`` (``--gpus N``), ``stages``,
    ``plans``, ``no_timing``.
    """
    return _run("cells", topo, {"job": (job, False), "catalog": (catalog, True), "profile": (profile, True)}, options)


def crius_schedule(topo: Topology, queue: Document, catalog: Optional[Document] = None,
                   **options: Any) -> Dict[str, Any]:
    """One Crius scheduling event: the ``tsched.crius-schedule.v1`` dict of ``topo-sched crius-schedule``.

    ``catalog`` is a GPU catalog document (the command's ``-c GPUS``). Options: ``depth``,
    ``objective``, ``event``, ``no_timing``.
    """
    return _run("crius-schedule", topo, {"queue": (queue, False), "catalog": (catalog, True)}, options)


def simulate(topo: Topology, trace: Document, scenario: Optional[Document] = None, **options: Any) -> SimResult:
    """Flow-level simulation: the ``tsched.simresult.v1`` dict of ``topo-sched simulate``.

    Options: ``until``, ``seed``, ``placement``, ``routing``, ``reroute``, ``priority``,
    ``levels``, ``links``, ``queue``, ``sample_ms``, ``links_report``, ``no_timing``.
    """
    return _run("simulate", topo, {"trace": (trace, False), "scenario": (scenario, True)}, options)


# ---- traces: the tsched_trace_* calls themselves (include/topo-sched/trace.h) --------------


class _TraceOptions(_C.Structure):
    # tsched_trace_options, field for field
    _fields_ = [("size", _C.c_size_t), ("seed", _C.c_uint64), ("model_mix", _C.c_char_p),
                ("model_mix_len", _C.c_size_t), ("model_mix_name", _C.c_char_p), ("gbits", _C.c_double),
                ("compute_ms", _C.c_double), ("gpus_per_node", _U32), ("scale_gpus", _U32),
                ("iterations", _C.c_uint64), ("arrival_window_s", _C.c_double), ("jobs", _U32),
                ("mean_interarrival_s", _C.c_double), ("sizes", _C.c_char_p), ("duration_dist", _C.c_char_p),
                ("compact", _C.c_int)]


def _trace_fns():
    # Looked up at first use, as the service's: the rest works with an older library.
    opts = _C.POINTER(_TraceOptions)
    return {
        "init": _proto("tsched_trace_options_init", None, opts),
        "set": _proto("tsched_trace_options_set", _C.c_int, opts, _C.c_char_p, _C.c_char_p),
        "alibaba": _proto("tsched_trace_convert_alibaba", _C.c_int, _PP, _C.c_char_p, _C.c_size_t, _C.c_char_p,
                          opts),
        "dcn": _proto("tsched_trace_convert_dcn", _C.c_int, _PP, _C.c_char_p, _C.POINTER(_C.c_char_p),
                      _C.POINTER(_C.c_char_p), _C.POINTER(_C.c_size_t), _C.c_size_t, opts),
        "dcn_dir": _proto("tsched_trace_convert_dcn_dir", _C.c_int, _PP, _C.c_char_p, opts),
        "poisson": _proto("tsched_trace_poisson", _C.c_int, _PP, opts),
    }


_TRACE_OPTIONS = ("seed", "gbits", "compute-ms", "gpus-per-node", "scale-gpus", "iterations", "arrival-window-s",
                  "jobs", "mean-interarrival-s", "sizes", "duration-dist")


def _trace_options(fns, what, model_mix, options):
    """The options struct (and the bytes it points to, kept alive with it). Every option goes
    through tsched_trace_options_set, so it is checked as the command line checks it."""
    o = _TraceOptions()
    fns["init"](_C.byref(o))
    keep = []
    for name, value in _options(options).items():
        if name == "compact":
            o.compact = 1 if value else 0
            continue
        if name not in _TRACE_OPTIONS:
            spelling = next((k for k in options if k.replace("_", "-") == name), name)
            raise _unknown_option(what, spelling, "options: %s, compact" % ", ".join(
                n.replace("-", "_") for n in _TRACE_OPTIONS), _E_FORMAT)
        if isinstance(value, bool):
            raise _error(_E_TYPE, "--%s: expected a number or a string, got %r" % (name, value))
        text = (repr(value) if isinstance(value, float) else str(value)).encode("utf-8")
        keep.append(text)
        _check(fns["set"](_C.byref(o), name.encode(), text))
    if model_mix is not None:
        # the text goes to the library as it is (its reader names the field at fault)
        if isinstance(model_mix, bytes):
            mix = model_mix
        elif isinstance(model_mix, str):
            mix = model_mix.encode("utf-8")
        elif isinstance(model_mix, (dict, list)):
            mix = _json.dumps(model_mix, allow_nan=False).encode("utf-8")
        else:
            raise TypeError("model_mix: expected a dict, str or bytes holding JSON, not %s" % type(model_mix).__name__)
        if not mix:
            raise _error(_E_PARSE, "model-mix: empty")
        keep.append(mix)
        o.model_mix, o.model_mix_len = mix, len(mix)
    return o, keep


def _trace_run(call):
    out = _P()
    _check(call(_C.byref(out)))
    return _take_string(out)


def trace_convert_alibaba(csv: Text, name: Optional[str] = None, model_mix: Optional[Document] = None,
                          **options: Any) -> str:
    """``topo-sched trace convert-alibaba``: the trace of an Alibaba cluster-trace-gpu-v2023 pod
    CSV (``csv``: its text, str or bytes; ``name`` names it in messages and its base name names
    the trace, as the command's POD_CSV does), as the document's text.

    ``model_mix``: a ``tsched.model-mix.v1`` document (dict, str or bytes). Options:
    ``scale_gpus``, ``gpus_per_node``, ``seed``, ``gbits``, ``compute_ms``, ``compact``.
    """
    fns = _trace_fns()
    data = csv if isinstance(csv, bytes) else _text(csv, "csv").encode("utf-8")
    o, keep = _trace_options(fns, "trace_convert_alibaba", model_mix, options)
    return _trace_run(lambda out: fns["alibaba"](out, data, len(data), None if name is None else name.encode(),
                                                 _C.byref(o)))


def trace_convert_dcn(dir: str, files: Optional[Mapping[str, Text]] = None, **options: Any) -> str:
    """``topo-sched trace convert-dcn``: the trace of a dcn-simulators ``ring_size_R`` folder, as
    the document's text. ``files`` maps each file's name to its text (names other than
    ``job_<K>-<MODEL>.txt`` are ignored) and ``dir`` names the folder; without ``files`` the
    library reads the folder ``dir`` itself.

    Options: ``seed``, ``compute_ms``, ``iterations``, ``arrival_window_s``, ``compact``.
    """
    fns = _trace_fns()
    o, keep = _trace_options(fns, "trace_convert_dcn", None, options)
    d = dir.encode("utf-8")
    if files is None:
        return _trace_run(lambda out: fns["dcn_dir"](out, d, _C.byref(o)))
    items = [(k.encode("utf-8"), v if isinstance(v, bytes) else _text(v, k).encode("utf-8"))
             for k, v in dict(files).items()]
    n = len(items)
    names = (_C.c_char_p * max(n, 1))(*[k for k, _ in items])
    texts = (_C.c_char_p * max(n, 1))(*[v for _, v in items])
    lens = (_C.c_size_t * max(n, 1))(*[len(v) for _, v in items])
    return _trace_run(lambda out: fns["dcn"](out, d, names, texts, lens, n, _C.byref(o)))


def trace_poisson(model_mix: Optional[Document] = None, **options: Any) -> str:
    """``topo-sched trace poisson``: synthetic jobs, as the document's text.

    Options: ``jobs``, ``mean_interarrival_s``, ``sizes`` (``"G:W,G:W"``), ``duration_dist``
    (required), ``gpus_per_node``, ``gbits``, ``compute_ms``, ``seed``, ``compact``;
    ``model_mix`` as for :func:`trace_convert_alibaba`.
    """
    fns = _trace_fns()
    o, keep = _trace_options(fns, "trace_poisson", model_mix, options)
    return _trace_run(lambda out: fns["poisson"](out, _C.byref(o)))

"""mltwin — a discrete-event digital twin of ML infrastructure on AWS, from Python.

Training (EKS Trn1 nodes, Volcano v1.12.1 gang scheduling of TorchX jobs, the Philly trace) and
inference (SageMaker multi-model endpoints on DJL Serving 0.23.0 or MMS, the AWS blog's load
test, the Azure Functions trace), driven by the same C++ core and policy code as the
``mltwin`` command line::

    import mltwin
    sc = mltwin.load_scenario("scenarios/mme-djl-blog-top-n.json")
    sc["server"]["serving_properties"]["max_idle_time"] = 60      # change any parameter
    run = mltwin.Run(sc, seed=7)                                  # database in memory
    run.run_until("10m")                                          # step ...
    run.state()["in_flight"]                                      # ... and look inside
    run.run()                                                     # to the end
    run.summary()["model_latency"]["p99_us"]
    run.table("endpoint_metrics")                                 # a pandas DataFrame

Units: simulated times are seconds (float) in this API unless a name ends in ``_ns``
(integer nanoseconds, as in the database); sizes are bytes. Time arguments accept seconds or
strings with a unit ("100ms", "90s", "30m", "12h", "7d").

Errors: a bad scenario raises :class:`ScenarioError` (a ValueError) naming the file and the
JSON path; a bad argument raises ValueError naming the argument; a policy written in Python
that raises stops the run and its exception reaches the caller of :meth:`Run.run_until` /
:meth:`Run.run` with its traceback (the run's database then says ``end_reason = 'failed'``).
How a run can end: :data:`end_reasons` (docs/results-schema.md says what each means).
"""
from __future__ import annotations

import copy
import json
import math
import os
import time as _time
import warnings
from typing import Any, Callable, List, Mapping, Optional, Union

from . import _mltwin
from ._mltwin import ScenarioError, explain, export_trace, register_plugin, registered_plugins, unregister_plugin
from ._frames import frame_from_columns, read_table


class ScenarioWarning(UserWarning):
    """Something in a scenario Volcano would accept and ignore (e.g. a misspelt plugin argument);
    ``Run(..., strict=True)`` makes it a ScenarioError."""

__version__ = _mltwin.__version__
git_sha = _mltwin.git_sha
#: How a run can end, as ``run_meta.end_reason`` records it: ``completed``, ``until``,
#: ``interrupted``, ``terminated``, ``failed`` (defined once, in the C++ store).
end_reasons = tuple(_mltwin.end_reasons)
volcano_release = _mltwin.volcano_release
djl_serving_release = _mltwin.djl_serving_release

__all__ = [
    "Run", "Scenario", "ScenarioError", "ScenarioWarning", "compare", "explain", "export_trace", "instance_catalog", "load_scenario", "read_table",
    "register_plugin",
    "registered_plugins", "to_ns", "sweep", "policies", "end_reasons", "unregister_plugin",
]

TimeLike = Union[int, float, str]


def compare(history: str, database: str, worst: int = 10, name_map: Optional[str] = None) -> dict:
    """How well a run of a job history predicted it (``mltwin compare``; docs/compare.md).

    ``history``: the job history CSV the run replayed (``workload.history``); ``database``: the
    run's results database. Returns a dict: ``compared`` (jobs started in both), ``not_in_run``,
    ``started_only_in_history``, ``started_only_in_twin``, ``start_error`` (``median_absolute_s``,
    ``mean_s``: predicted - actual start, s), ``queueing_wait`` (``actual`` and ``predicted``:
    ``n``, ``mean_s``, ``p50_s``, ``p90_s``, ``p99_s``, ``max_s``; ``ks_distance`` in [0, 1]),
    ``jobs`` (one dict per history row: ``name``, ``submit_s``, ``actual_start_s``,
    ``predicted_start_s``, ``error_s``; None where it did not start) and ``report`` (the CLI's
    text, listing the ``worst`` largest errors). Times are seconds since the history's first
    submit_time. ``name_map``: an anonymized run's name map (``Run(anonymize=True)``,
    :attr:`Run.name_map`; docs/privacy.md), which such a run needs. Raises ScenarioError for a
    bad history (FILE:LINE: column ...) or name map, ValueError when no job started in both, for
    an anonymized run without its name map or with another, RuntimeError for a database that
    cannot be read or is not a training run's."""
    return json.loads(_mltwin._compare_history_json(os.fspath(history), os.fspath(database), int(worst),
                                                    "" if name_map is None else os.fspath(name_map)))


_NS_MAX = 2**63 - 1      # simulated times are int64 nanoseconds (about 292 years)
_SEED_MAX = 2**64 - 1    # seeds are unsigned 64-bit
_MAX_JOBS = 2**31 - 1    # as the CLI's --max-jobs


def to_ns(t: TimeLike) -> int:
    """A simulated time or duration in integer ns, from seconds (int or float) or a string
    with a unit ("100ms", "90s", "30m", "12h", "7d"). Raises ValueError on anything else,
    on a negative time and on one beyond 2**63 - 1 ns (about 292 years)."""
    if isinstance(t, bool):
        raise ValueError(f"expected seconds or a duration such as '30m', got {t!r}")
    if isinstance(t, (int, float)):
        if t != t or t < 0:
            raise ValueError(f"expected a non-negative time, got {t!r}")
        if math.isinf(t) or t * 1_000_000_000 > _NS_MAX:
            raise ValueError(f"time {t!r} s is out of range (at most {_NS_MAX} ns, about 292 years)")
        return int(round(t * 1_000_000_000))
    if isinstance(t, str):
        try:
            ns = _mltwin.parse_duration_ns(t)
        except Exception as e:  # the kernel's parser says what it expected
            raise ValueError(f"time {t!r}: expected seconds or a duration such as 90s, 30m, 12h, 7d ({e})") from None
        if ns < 0:
            raise ValueError(f"expected a non-negative time, got {t!r}")
        return ns
    raise ValueError(f"expected seconds or a duration such as '30m', got {type(t).__name__} {t!r}")


def _arg_ns(name: str, t: TimeLike, *, positive: bool = False) -> int:
    """to_ns(t), its ValueError naming the argument ``name``."""
    try:
        ns = to_ns(t)
    except ValueError as e:
        raise ValueError(f"{name}: {e}") from None
    if positive and ns <= 0:
        raise ValueError(f"{name}: expected a positive time, got {t!r}")
    return ns


def _arg_path(name: str, p: Any) -> str:
    """A path argument as str; ValueError naming ``name`` for anything else, an empty path or
    one with a NUL character (the file opened would not be the one named)."""
    if not isinstance(p, (str, os.PathLike)):
        raise ValueError(f"{name}: expected a file path, got {type(p).__name__} {p!r}")
    s = os.fspath(p)
    if not isinstance(s, str):
        raise ValueError(f"{name}: expected a str path, got {type(s).__name__} {s!r}")
    if s == "":
        raise ValueError(f"{name}: expected a file path, got ''")
    if "\0" in s:
        raise ValueError(f"{name}: {s!r} contains a NUL character")
    return s


class Scenario(dict):
    """A scenario document (the JSON of a scenario file) as a dict you may change, plus the
    file it came from (``path``), whose folder anchors the relative data paths it names.

    ``set("/server/serving_properties/max_idle_time", 60)`` changes one value by JSON pointer
    (creating objects on the way); plain item assignment works as well."""

    def __init__(self, doc: Mapping[str, Any], path: Optional[str] = None):
        super().__init__(copy.deepcopy(dict(doc)))
        self.path = path

    def set(self, pointer: str, value: Any) -> "Scenario":
        """Sets the value at JSON pointer ``pointer`` (RFC 6901, e.g. "/queues/0/weight"),
        creating missing objects on the way; returns self. Raises ValueError naming the pointer
        when a list index is not an integer or past the list's end, or a step goes through a
        value that is neither an object nor a list."""
        if not isinstance(pointer, str) or not pointer.startswith("/"):
            raise ValueError(f"expected a JSON pointer such as '/endpoint/initial_instances', got {pointer!r}")
        keys = [k.replace("~1", "/").replace("~0", "~") for k in pointer[1:].split("/")]
        node: Any = self

        def index(lst: list, k: str, upto: int) -> int:
            where = "/" + "/".join(keys[:upto - 1])  # the list's own pointer
            if not k.isdigit():
                raise ValueError(f"{pointer}: {where} is a list; expected an index, got {k!r}")
            i = int(k)
            if i >= len(lst):
                raise ValueError(f"{pointer}: {where}: index {i} is past the end of the list ({len(lst)} items)")
            return i

        for n, k in enumerate(keys[:-1]):
            if isinstance(node, list):
                node = node[index(node, k, n + 1)]
            elif isinstance(node, dict):
                node = node.setdefault(k, {})
            else:
                where = "/" + "/".join(keys[:n])
                raise ValueError(f"{pointer}: {where} is {type(node).__name__} {node!r}, not an object or a list")
        last = keys[-1]
        if isinstance(node, list):
            node[index(node, last, len(keys))] = value
        elif isinstance(node, dict):
            node[last] = value
        else:
            where = "/" + "/".join(keys[:-1])
            raise ValueError(f"{pointer}: {where} is {type(node).__name__} {node!r}, not an object or a list")
        return self

    def copy(self) -> "Scenario":  # type: ignore[override]
        return Scenario(self, self.path)


def load_scenario(path: Union[str, os.PathLike]) -> Scenario:
    """Reads a scenario file into a :class:`Scenario` (not validated until a Run is made).
    Raises ScenarioError (file:line:column) if the file is not JSON, OSError if unreadable."""
    path = os.fspath(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ScenarioError(f"{path}:{e.lineno}:{e.colno}: invalid JSON: {e.msg}") from None
    if not isinstance(doc, dict):
        raise ScenarioError(f"{path}: /: expected a JSON object (a scenario)")
    return Scenario(doc, path)


def instance_catalog(path: Optional[Union[str, os.PathLike]] = None) -> dict:
    """The instance catalog runs read, as ``{instance type: row}`` (each row as the catalog file
    writes it: ``vcpu``, ``memory_gib``, ``extended_resources``, ``on_demand_usd_per_hour``,
    ``price_region``, ``source``, ...; docs/catalog.md). ``path`` names a catalog file; default:
    $MLTWIN_CATALOG, else the one that ships with mltwin (catalog/aws-instance-types.json). A
    scenario's own ``catalog.instance_types`` rows are not included. Raises ScenarioError if the
    file is missing or not a valid catalog."""
    _, text = _mltwin._instance_catalog(os.fspath(path) if path is not None else "")
    return {row["name"]: row for row in json.loads(text)["instance_types"]}


class Run:
    """One run of a scenario: the model, its random streams and its SQLite results database.

    Parameters
    ----------
    scenario:
        a scenario file path, a :class:`Scenario`, or a plain dict (then ``path`` may name the
        file it stands for, to anchor relative data paths; default: the current folder, and
        messages name it ``<scenario dict>``).
    seed:
        overrides the scenario's seed; one seed reproduces a run bit for bit.
    out:
        the results database: a file path, or None (default) for a database in memory,
        readable through :meth:`table` / :meth:`query` while the Run lives. The file is
        written directly at that path from the start, so that it can be read while the run
        goes on (committed at each :meth:`checkpoint`): an existing file there is replaced
        when the Run is made, and a run stopped by an error leaves it with ``end_reason =
        'failed'``. (The CLI instead writes beside the path and renames at the end.) A path
        that is a directory, a device, a fifo, or one of the run's inputs (the scenario, a
        trace: compared by file identity) raises ValueError.
    data:
        the folder ``${MLTWIN_DATA}`` stands for (default: ``$MLTWIN_DATA``, else the first
        ``shared/data`` folder above the scenario).
    max_jobs:
        Philly workloads: keep only the first N jobs by submit time (0: all).
    overrides:
        a JSON merge patch (RFC 7386) applied before validation.
    autoscaling, memory_cache, disk_cache, routing, instance_scaling:
        inference runs: the serving policies, replacing the scenario's choices (its
        ``policies`` block). Each is one of: a registered policy's name (``"mms-static"``); a
        choice as the scenario writes it (``{"name": "cache-aware", "arguments":
        {"max_copies": 2}}``); or a policy written in Python (see :mod:`mltwin.policies`):
        an object for ``autoscaling``, ``routing`` and ``instance_scaling``, a callable
        returning a fresh policy per instance (e.g. the class) for ``memory_cache`` and
        ``disk_cache``. ``mltwin.policies.serving_policies()`` lists the registered ones.
        A Python ``instance_scaling`` policy works within the endpoint's min_instances ..
        max_instances.
    until:
        the simulated time :meth:`run` stops at when called without one (seconds or "12h";
        positive, at most 2**63 - 1 ns).
    strict:
        the scenario's warnings (plugin arguments Volcano would ignore) raise ScenarioError
        instead of being issued as :class:`ScenarioWarning` (also kept in :attr:`warnings`).
    anonymize:
        training runs: rename the Nodes read from kubectl, the jobs, the queues and the input
        files before the run (``node-1``, ``job-1``, ``queue-1``, ``<role>-<k>.json``), so the
        database holds none of the cluster's names (docs/privacy.md). The map to the real names
        is written to ``name_map``, or beside ``out`` (``x.sqlite`` -> ``x.names.json``);
        :attr:`name_map` says where. ``mltwin.compare(..., name_map=...)`` reads it.

    Raises ScenarioError (bad scenario: file and JSON path), ValueError (bad argument, named:
    e.g. ``seed`` outside 0 .. 2**64 - 1, ``max_jobs`` outside 0 .. 2**31 - 1), RuntimeError
    (the database cannot be written).
    """

    def __init__(self, scenario: Union[str, os.PathLike, Mapping[str, Any]], *, seed: Optional[int] = None,
                 out: Optional[Union[str, os.PathLike]] = None, data: Optional[Union[str, os.PathLike]] = None,
                 max_jobs: int = 0, overrides: Optional[Mapping[str, Any]] = None, path: Optional[str] = None,
                 autoscaling: Any = None, memory_cache: Any = None,
                 disk_cache: Any = None, until: Optional[TimeLike] = None,
                 routing: Any = None, instance_scaling: Any = None, strict: bool = False,
                 anonymize: bool = False, name_map: Optional[Union[str, os.PathLike]] = None):
        if isinstance(scenario, (str, os.PathLike)):
            file_path, document = _arg_path("scenario", scenario), ""
        elif isinstance(scenario, Mapping):
            # Without a path, messages name the dict as "<scenario dict>" in the current folder
            # (where relative data paths are read from), not a file that does not exist.
            file_path = path or getattr(scenario, "path", None) or os.path.join(os.getcwd(), "<scenario dict>")
            document = json.dumps(scenario)
        else:
            raise ValueError(f"scenario: expected a file path or a dict, got {type(scenario).__name__}")
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed <= _SEED_MAX):
            raise ValueError(f"seed: expected an integer from 0 to {_SEED_MAX}, got {seed!r}")
        if not isinstance(max_jobs, int) or isinstance(max_jobs, bool) or not 0 <= max_jobs <= _MAX_JOBS:
            raise ValueError(f"max_jobs: expected an integer from 0 (all jobs) to {_MAX_JOBS}, got {max_jobs!r}")
        out_path = ":memory:" if out is None else _arg_path("out", out)
        data_path = "" if data is None else _arg_path("data", data)
        if overrides is not None and not isinstance(overrides, Mapping):
            raise ValueError(f"overrides: expected a dict (a JSON merge patch), got {type(overrides).__name__}")
        # Serving policies: names and choices go to the scenario's /policies block; Python
        # objects replace the policies built from it.
        chosen: dict = {}
        given = {"autoscaling": autoscaling, "memory_cache": memory_cache, "disk_cache": disk_cache,
                 "routing": routing, "instance_scaling": instance_scaling}
        for site, value in list(given.items()):
            if isinstance(value, str):
                chosen[site], given[site] = {"name": value}, None
            elif isinstance(value, Mapping):
                if not isinstance(value.get("name"), str):
                    raise ValueError(f"{site}: a policy choice needs its \"name\" (a str), got {dict(value)!r}")
                chosen[site], given[site] = dict(value), None
        for site, methods in (("autoscaling", ("on_arrival", "on_worker_free")), ("routing", ("route",)),
                              ("instance_scaling", ("evaluate",))):
            value = given[site]
            if value is None:
                continue
            if isinstance(value, type):
                raise ValueError(f"{site}: pass an instance of {value.__name__}, not the class (the caches take a "
                                 f"class or factory: one policy per instance; {site} takes one object)")
            missing = [m for m in methods if not callable(getattr(value, m, None))]
            if missing:
                raise ValueError(f"{site}: expected a policy name, a choice {{'name': ..., 'arguments': {{...}}}} or "
                                 f"an object with {', '.join(methods)}; got {type(value).__name__} without "
                                 f"{', '.join(missing)}")
        for site in ("memory_cache", "disk_cache"):
            if given[site] is not None and not callable(given[site]):
                raise ValueError(f"{site}: expected a policy name, a choice {{'name': ...}} or a callable returning a "
                                 f"fresh cache policy (e.g. the class), got {type(given[site]).__name__}")
        self._until_ns = None if until is None else _arg_ns("until", until, positive=True)
        self._until_text = "" if until is None else str(until)
        self._run = _mltwin.Run(
            file_path, out_path, seed, data_path,
            int(max_jobs), "" if overrides is None else json.dumps(overrides), document, self._until_text,
            given["autoscaling"], given["memory_cache"], given["disk_cache"], given["routing"],
            given["instance_scaling"], bool(strict), json.dumps(chosen) if chosen else "",
            bool(anonymize), "" if name_map is None else _arg_path("name_map", name_map))
        for w in self._run.warnings:
            warnings.warn(w, ScenarioWarning, stacklevel=2)
        self._wall = 0.0
        self._busy = False  # inside run_until: a policy callback of this run is not to step or close it

    # ---- identity ----
    @property
    def warnings(self) -> List[str]:
        """What Volcano would accept and ignore in the scenario, one line each with its place
        (a ConfigMap's file:line:column, or the scenario's JSON pointer): plugin arguments no
        plugin reads, or whose subject mltwin does not model."""
        return list(self._run.warnings)

    @property
    def kind(self) -> str:
        """"training" or "inference"."""
        return self._run.kind

    @property
    def name(self) -> str:
        """The scenario's name."""
        return self._run.name

    @property
    def seed(self) -> int:
        """The seed of this run (the scenario's, or the ``seed`` argument)."""
        return self._run.seed

    @property
    def database(self) -> str:
        """The database path, or ":memory:"."""
        return self._run.out

    @property
    def name_map(self) -> Optional[str]:
        """Where an anonymized run (``anonymize=True``) wrote its name map; None otherwise."""
        return self._run.name_map or None

    @property
    def scenario(self) -> dict:
        """The scenario as run (after overrides)."""
        return json.loads(self._run.scenario_json)

    # ---- time ----
    @property
    def now(self) -> float:
        """Simulated time reached, s."""
        return self._run.now_ns / 1e9

    @property
    def now_ns(self) -> int:
        """Simulated time reached, integer ns."""
        return self._run.now_ns

    @property
    def next_time(self) -> Optional[float]:
        """Time of the next event, s (None when no event is left)."""
        t = self._run.next_time_ns
        return None if t is None else t / 1e9

    @property
    def done(self) -> bool:
        """True when no event is left (the workload has ended)."""
        return self._run.next_time_ns is None

    @property
    def finished(self) -> bool:
        """True once :meth:`finish` (or :meth:`run`) has closed the run."""
        return self._run.finished

    @property
    def events(self) -> int:
        """Events fired so far."""
        return self._run.events

    def run_until(self, t: TimeLike) -> int:
        """Fires every event at or before simulated time ``t`` (seconds or "30m"); returns the
        number fired. Stepping changes nothing: run_until(a); run_until(b) records exactly what
        run_until(b) does. Raises ValueError if ``t`` is before :attr:`now` (time does not go
        back) or out of range; re-raises what a policy raises (the run is then over);
        RuntimeError when called from inside a policy callback of this run."""
        t_ns = _arg_ns("t", t)
        if t_ns < self._run.now_ns:
            raise ValueError(f"run_until({t!r}): {t_ns / 1e9:g} s is before now ({self.now:g} s)")
        return self._run_until_ns(t_ns)

    def _run_until_ns(self, t_ns: int) -> int:
        self._not_busy("run_until")
        start = _time.perf_counter()
        self._busy = True
        try:
            return self._run.run_until(t_ns)
        finally:
            self._busy = False
            self._wall += _time.perf_counter() - start

    def _not_busy(self, what: str) -> None:
        # A policy written in Python runs in the middle of one of this run's events: stepping or
        # closing the run from there would pull the model's state from under that event.
        if self._busy:
            raise RuntimeError(f"Run.{what}() called from inside a policy callback of the same run "
                               "(the run is in the middle of an event); call it after run_until returns")

    def run(self, until: Optional[TimeLike] = None, *, progress: Union[bool, Callable[[str], None]] = False,
            chunk: TimeLike = "1h") -> "Run":
        """Runs to the end of the workload (or to ``until``), then :meth:`finish`. With
        ``progress=True`` prints a status line every ~2 s of wall time (or calls ``progress``
        with it). It advances ``chunk`` of simulated time at a time: a KeyboardInterrupt
        (Ctrl-C, or a notebook's interrupt) is honoured between chunks, records the run as
        interrupted and re-raises. Returns self."""
        until_ns = _arg_ns("until", until, positive=True) if until is not None else self._until_ns
        chunk_ns = max(1, _arg_ns("chunk", chunk))
        last = _time.perf_counter()
        try:
            while True:
                nxt = self._run.next_time_ns
                if nxt is None or (until_ns is not None and nxt > until_ns):
                    break
                target = nxt + chunk_ns if until_ns is None else min(nxt + chunk_ns, until_ns)
                self._run_until_ns(target)
                if progress and _time.perf_counter() - last > 2.0:
                    last = _time.perf_counter()
                    line = self._run.status_line(self._wall)
                    (progress if callable(progress) else print)(line)
        except KeyboardInterrupt:
            # Between two chunks: the model is consistent, so close it as the CLI does on Ctrl-C.
            self.finish("interrupted")
            raise
        if until_ns is not None and not self.done:
            self._run_until_ns(until_ns)
            self.finish("until")
        else:
            self.finish("completed")
        return self

    def finish(self, reason: str = "completed") -> None:
        """Closes the run at the time reached: jobs or requests still waiting are recorded as
        such, run_meta gets end_reason (one of :data:`end_reasons`: completed | until |
        interrupted | terminated | failed) and end_ns. The database stays readable.
        Idempotent. Raises ValueError for any other reason, RuntimeError inside a policy
        callback of this run."""
        self._not_busy("finish")
        self._run.finish(reason)

    def checkpoint(self) -> None:
        """Commits what has been recorded so far to the database file. Raises RuntimeError
        inside a policy callback of this run."""
        self._not_busy("checkpoint")
        self._run.checkpoint()

    # ---- looking inside ----
    def state(self) -> dict:
        """The model now. Training: ``nodes`` (NeuronCores used, CPU, memory, pods) and the
        ``jobs`` not yet completed with their phase and pods' nodes. Inference: request counts
        so far and every instance with its models and worker pools. Times in s (``now_s``) and
        ns (``now_ns``)."""
        return json.loads(self._run.state_json())

    def snapshot(self) -> dict:
        """Training runs: the cluster's scheduling state now, as the ``v1 List`` that
        ``kubectl get nodes,pods,podgroups,queues,priorityclasses -A -o json`` prints — the
        objects the Volcano scheduler would see if a session opened now — plus the
        ``mltwin-snapshot`` ConfigMap (the time and the scheduler's tie-break state). Save it
        with ``json.dump`` and ``mltwin-scheduler --once --snapshot FILE`` decides on it as the
        twin would. The twin's time 0 is 2000-01-01T00:00:00Z (the ConfigMap's data.epoch). Raises RuntimeError for an inference
        run."""
        return json.loads(self._run.snapshot())

    def summary(self) -> dict:
        """The run's summary figures (as the CLI prints them), as a dict. Call after
        :meth:`run` / :meth:`finish` for final figures; before, they cover the run so far
        (inference: instance-hours and cost up to now; requests in flight not yet counted in
        the latency figures). Inference, after :meth:`finish`: ``requests`` = ``served`` +
        ``rejected_503`` + ``rejected_507`` + ``unserved_at_end`` (requests not answered when
        the run ended)."""
        return json.loads(self._run.summary_json())

    def summary_text(self) -> str:
        """The summary exactly as the CLI prints it."""
        return self._run.summary_text(self._wall)

    def query(self, sql: str):
        """Runs SQL on the run's database (rows recorded so far included); a DataFrame."""
        return frame_from_columns(self._run.query(sql))

    def table(self, name: str):
        """A whole table or view of the database as a DataFrame (columns and units:
        docs/results-schema.md). Training: jobs, pods, decisions, phases, cluster_metrics,
        node_events, nodes, link_usage, step_periods, job_times; inference: requests, model_events, worker_events,
        instance_events, endpoint_metrics; both: run_meta, inputs."""
        if not name.replace("_", "").isalnum():
            raise ValueError(f"table name {name!r}: expected a plain name such as 'jobs'")
        return self.query(f'SELECT * FROM "{name}"')

    # Shortcuts for the common tables.
    def jobs(self):
        """Training: the ``jobs`` table, one row per job (phase, times in ns, nodes, why it
        waited); see docs/results-schema.md."""
        return self.table("jobs")

    def pods(self):
        """Training: the ``pods`` table, pod events (Created, Bound, Running, Succeeded, Evicted, ...)
        with their time in ns and node."""
        return self.table("pods")

    def requests(self):
        """Inference: the ``requests`` table (every request up to ``request_records_full``,
        then one in ``request_sample_every``; status, latencies in ns)."""
        return self.table("requests")

    def metrics(self):
        """Per-interval metrics: endpoint_metrics (inference, CloudWatch names) or
        cluster_metrics (training)."""
        return self.table("endpoint_metrics" if self.kind == "inference" else "cluster_metrics")

    def __enter__(self) -> "Run":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self.finished:
            self.finish("interrupted" if exc_type is not None else "completed")

    def __repr__(self) -> str:
        return f"<mltwin.Run {self.name!r} ({self.kind}) seed={self.seed} now={self.now:.3f}s db={self.database!r}>"


from . import policies  # noqa: E402
from .sweep import sweep  # noqa: E402

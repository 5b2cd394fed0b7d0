"""Parameter sweeps on Dask: the cross product of parameter values and seeds, one run each.

    import mltwin
    runs, points = mltwin.sweep("scenarios/mme-djl-blog-top-n.json",
                                {"/policies/routing/arguments/heavy_load_per_worker": [2, 8]},
                                seeds=range(1, 6), until="10m")

Without ``client`` a local Dask cluster is started (one single-threaded worker process per
core; ``n_workers`` to choose) and closed afterwards. To spread a sweep over machines, start a
scheduler and workers (Debian's python3-distributed installs the commands; every worker
machine needs mltwin importable and the data folder)::

    dask scheduler                                   # prints tcp://HOST:8786
    dask worker tcp://HOST:8786 --nthreads 1         # on each machine, as many as cores

and pass ``client=distributed.Client("tcp://HOST:8786")``. ``out_dir`` must then be a folder
every worker can write (a shared file system), or each database stays on its worker's disk.
"""
from __future__ import annotations

import itertools
import math
import os
import sys
import time
import traceback
import uuid
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import pandas as pd

PathLike = Union[str, os.PathLike]


def _flatten(d: Mapping[str, Any], prefix: str = "") -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flatten(v, key + "."))
        elif isinstance(v, (int, float, str, bool)) or v is None:
            out[key] = v
    return out


def _label(value: Any) -> str:
    s = str(value)
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in s)[:40]


def run_one(scenario: Mapping[str, Any], scenario_path: Optional[str], point: Mapping[str, Any], seed: int,
            out: str, until: Optional[Union[str, float]], data: Optional[str], max_jobs: int,
            plugins: Optional[Mapping[str, Callable[..., Any]]] = None) -> Dict[str, Any]:
    """One run of a sweep (what each Dask task executes); never raises: a failure comes back
    as a row with ``status = 'failed'`` and the error with its traceback."""
    import mltwin  # imported in the worker process

    row: Dict[str, Any] = dict(point)
    row.update({"seed": seed, "database": out})
    started = time.perf_counter()
    try:
        # Scheduling plugins written in Python live in the process that registers them: each
        # worker registers the sweep's before its run (idempotent).
        for pname, factory in (plugins or {}).items():
            mltwin.register_plugin(pname, factory)
        sc = mltwin.Scenario(scenario, scenario_path)
        for pointer, value in point.items():
            sc.set(pointer, value)
        run = mltwin.Run(sc, seed=seed, out=out, data=data, max_jobs=max_jobs, until=until)
        run.run(until)
        row.update({"status": "ok", "error": None})
        row.update({f"summary.{k}": v for k, v in _flatten(run.summary()).items()
                    if k not in ("scenario", "seed", "database", "kind")})
        meta = run.query("SELECT value FROM run_meta WHERE key = 'random_inputs'")
        row["random_inputs"] = meta["value"].iloc[0] if len(meta) else None
    except BaseException as e:  # noqa: BLE001 — report, never lose the other runs
        row.update({"status": "failed", "error": "".join(traceback.format_exception(type(e), e, e.__traceback__))})
    row["wall_s"] = time.perf_counter() - started
    return row


def _confidence(values: pd.Series, level: float) -> Tuple[float, float, int]:
    """Mean and the half-width of its Student-t confidence interval (scipy.stats)."""
    from scipy import stats

    v = pd.to_numeric(values, errors="coerce").dropna()
    n = len(v)
    if n == 0:
        return math.nan, math.nan, 0
    mean = float(v.mean())
    if n < 2:
        return mean, math.nan, n
    half = float(stats.t.ppf(0.5 + level / 2, n - 1) * v.std(ddof=1) / math.sqrt(n))
    return mean, half, n


def sweep(scenario: Union[PathLike, Mapping[str, Any]], grid: Mapping[str, Sequence[Any]], *,
          seeds: Iterable[int] = (1, 2, 3), client: Any = None, n_workers: Optional[int] = None,
          out_dir: PathLike = "results/sweep", until: Optional[Union[str, float]] = None,
          data: Optional[PathLike] = None, max_jobs: int = 0, level: float = 0.95,
          plugins: Optional[Mapping[str, Callable[..., Any]]] = None,
          progress: Union[bool, Callable[[str], None]] = True) -> Tuple[pd.DataFrame, pd.DataFrame]:
    """Runs ``scenario`` for every combination of ``grid`` values and every seed.

    Parameters
    ----------
    scenario: a scenario file, or a dict / :class:`mltwin.Scenario`.
    grid: JSON pointer -> values, e.g. ``{"/endpoint/initial_instances": [10, 20]}``.
    seeds: the seeds of each point; a seed changes only the random inputs the run's
        ``run_meta.random_inputs`` lists (reported in the result's ``attrs``).
    client: a ``distributed.Client``; None starts a local cluster of ``n_workers`` processes
        (default: the number of cores).
    out_dir: where each run's database goes (kept): ``<out_dir>/<name>-<point>-seed<N>.sqlite``.
    until, data, max_jobs: as for :class:`mltwin.Run`.
    plugins: scheduling plugins written in Python, name -> factory, registered in every worker
        process before its run (a plugin registered with :func:`mltwin.register_plugin` in
        this process alone does not reach the workers). Factories must be picklable: defined
        at module level (Dask ships them with cloudpickle, so notebook classes work too).
    level: confidence level of the intervals (default 0.95).
    progress: print (or pass to a callable) one line per finished run.

    Returns ``(runs, points)``: one row per run (the grid values, seed, status, error,
    database, wall_s, and every scalar of the run's summary as ``summary.<name>``), and one row
    per grid point with, for each numeric summary figure, ``<figure>.mean``, ``<figure>.ci``
    (half-width of the ``level`` Student-t interval over the seeds that succeeded) and ``n``.
    A failed run is a row with status 'failed' and its traceback; the others are unaffected.
    Raises ValueError for an empty grid value list or a pointer that is not a JSON pointer.
    """
    import mltwin

    if isinstance(scenario, (str, os.PathLike)):
        sc = mltwin.load_scenario(scenario)
    else:
        sc = mltwin.Scenario(scenario, getattr(scenario, "path", None))
    for pointer, values in grid.items():
        if not pointer.startswith("/"):
            raise ValueError(f"grid key {pointer!r}: expected a JSON pointer such as '/endpoint/initial_instances'")
        if len(list(values)) == 0:
            raise ValueError(f"grid {pointer}: no values")
    seeds = list(seeds)
    if not seeds:
        raise ValueError("seeds: at least one seed")
    keys = list(grid.keys())
    points = [dict(zip(keys, combo)) for combo in itertools.product(*[list(grid[k]) for k in keys])] or [{}]
    out_dir = os.fspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    name = sc.get("name", "scenario")
    tasks = []
    for i, point in enumerate(points):
        tag = "-".join(f"{k.rsplit('/', 1)[-1]}{_label(v)}" for k, v in point.items()) or "base"
        for seed in seeds:
            out = os.path.abspath(os.path.join(out_dir, f"{name}-p{i}-{tag}-seed{seed}.sqlite"))
            tasks.append((dict(sc), sc.path and os.path.abspath(sc.path), point, seed, out, until,
                          None if data is None else os.path.abspath(os.fspath(data)), max_jobs, dict(plugins or {})))

    say = (progress if callable(progress) else (lambda s: print(s, file=sys.stderr, flush=True))) if progress else None
    own_cluster = None
    if client is None:
        from distributed import Client, LocalCluster

        own_cluster = LocalCluster(n_workers=n_workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                                   dashboard_address=None)
        client = Client(own_cluster)
    try:
        from distributed import as_completed

        if say:
            say(f"sweep: {len(tasks)} runs ({len(points)} points x {len(seeds)} seeds) on "
                f"{len(client.scheduler_info().get('workers', {}))} Dask workers")
        # Keys unique to this call: Dask hands back a finished task's result to any later submit
        # with the same key, so two sweeps on one client must never share keys.
        token = uuid.uuid4().hex[:12]
        futures = [client.submit(run_one, *t, pure=False, key=f"mltwin-run-{token}-{i}") for i, t in enumerate(tasks)]
        rows: List[Dict[str, Any]] = [None] * len(futures)  # type: ignore[list-item]
        index = {f.key: i for i, f in enumerate(futures)}
        started = time.perf_counter()
        for done, fut in enumerate(as_completed(futures), 1):
            row = fut.result()
            rows[index[fut.key]] = row
            if say:
                params = ", ".join(f"{k}={row[k]!r}" for k in keys)
                status = "ok" if row["status"] == "ok" else "FAILED: " + row["error"].strip().splitlines()[-1]
                say(f"sweep: {done}/{len(futures)} [{time.perf_counter() - started:.1f}s] {params} seed={row['seed']}: {status}")
    finally:
        if own_cluster is not None:
            client.close()
            own_cluster.close()

    runs = pd.DataFrame(rows)
    random_inputs = next((r.get("random_inputs") for r in rows if r.get("random_inputs")), None)
    runs.attrs["random_inputs"] = random_inputs
    ok = runs[runs["status"] == "ok"]
    figures = [c for c in runs.columns if c.startswith("summary.") and pd.api.types.is_numeric_dtype(runs[c])
               and not pd.api.types.is_bool_dtype(runs[c])]
    point_rows = []
    for point in points:
        sel = ok
        for k, v in point.items():
            sel = sel[sel[k].apply(lambda x, v=v: x == v)]
        prow: Dict[str, Any] = dict(point)
        prow["n"] = len(sel)
        prow["failed"] = int(((runs[keys] == pd.Series(point)).all(axis=1) & (runs["status"] != "ok")).sum()) if keys \
            else int((runs["status"] != "ok").sum())
        for f in figures:
            mean, half, _ = _confidence(sel[f], level)
            prow[f"{f[len('summary.'):]}.mean"] = mean
            prow[f"{f[len('summary.'):]}.ci"] = half
        point_rows.append(prow)
    points_df = pd.DataFrame(point_rows)
    points_df.attrs["random_inputs"] = random_inputs
    points_df.attrs["confidence_level"] = level
    if say and random_inputs:
        say(f"sweep: the seed changes: {random_inputs}")
    return runs, points_df

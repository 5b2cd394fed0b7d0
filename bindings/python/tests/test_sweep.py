"""mltwin.sweep on a local Dask cluster (2 worker processes).

tiny-gang's job completion times are derived in test_training.py: with pod start-up 2 s the
jobs complete 3603.05, 7207.05 and 8411.05 s after submission (mean 6407.05 s); with 5 s,
3606.05, 7213.05 and 8420.05 s (mean 6413.05 s). Constant latencies make every seed give the
same figures, so the 95 % interval's half-width is 0. With a random start-up the half-width
is t(0.975, n-1) * s / sqrt(n); t(0.975, 2) = 4.302652729911275 (Student's t table).
"""
import math
import os

import pytest

import mltwin
from lifo_plugin import Lifo


def test_grid_seeds_means_and_kept_databases(tiny_gang, tmp_path):
    lines = []
    runs, points = mltwin.sweep(tiny_gang, {"/lifecycle/pod_startup/constant": ["2s", "5s"]}, seeds=[1, 2, 3],
                                n_workers=2, out_dir=tmp_path, progress=lines.append)
    assert len(runs) == 6 and set(runs["status"]) == {"ok"}
    assert all(os.path.exists(p) for p in runs["database"])
    by = points.set_index("/lifecycle/pod_startup/constant")
    assert by.loc["2s", "jct_s.mean.mean"] == pytest.approx(6407.05)
    assert by.loc["5s", "jct_s.mean.mean"] == pytest.approx(6413.05)
    assert by.loc["2s", "jct_s.mean.ci"] == pytest.approx(0.0, abs=1e-9)
    assert list(by["n"]) == [3, 3]
    # Progress: one line per run, and the inputs the seed changes.
    assert sum("seed=" in l for l in lines) == 6
    assert "pod start-up latency" in points.attrs["random_inputs"]


def test_confidence_interval_and_a_failed_run(tiny_gang, tmp_path):
    sc = tiny_gang.copy()
    sc["lifecycle"]["pod_startup"] = {"uniform": ["1s", "9s"], "source": "test"}
    runs, points = mltwin.sweep(sc, {"/output/metrics_interval": ["5m", "not-a-duration"]}, seeds=[1, 2, 3],
                                n_workers=2, out_dir=tmp_path, progress=False)
    bad = runs[runs["/output/metrics_interval"] == "not-a-duration"]
    assert set(bad["status"]) == {"failed"}
    assert all("metrics_interval" in e for e in bad["error"])
    good = runs[runs["status"] == "ok"]
    assert len(good) == 3
    v = good["summary.jct_s.mean"].astype(float)
    mean = v.mean()
    s = math.sqrt(sum((x - mean) ** 2 for x in v) / 2)
    assert s > 0  # the seeds do change the start-up times
    row = points.set_index("/output/metrics_interval").loc["5m"]
    assert row["jct_s.mean.mean"] == pytest.approx(mean)
    assert row["jct_s.mean.ci"] == pytest.approx(4.302652729911275 * s / math.sqrt(3))
    assert points.set_index("/output/metrics_interval").loc["not-a-duration", "failed"] == 3


def test_bad_grid_is_a_clear_error(tiny_gang, tmp_path):
    with pytest.raises(ValueError, match="JSON pointer"):
        mltwin.sweep(tiny_gang, {"lifecycle.pod_startup": [1]}, out_dir=tmp_path)
    with pytest.raises(ValueError, match="no values"):
        mltwin.sweep(tiny_gang, {"/seed": []}, out_dir=tmp_path)


def test_python_plugins_reach_the_workers(tiny_gang, tmp_path):
    # With LIFO first, c (submitted at 600 s) runs before the second 4-node gang and completes
    # 5407.05 - 600 = 4807.05 s after submission (test_policies.py).
    sc = tiny_gang.copy()
    sc["volcano"]["tiers"][0]["plugins"].insert(0, {"name": "sweep-lifo"})
    runs, _ = mltwin.sweep(sc, {}, seeds=[1, 2], n_workers=2, out_dir=tmp_path, progress=False,
                           plugins={"sweep-lifo": Lifo})
    assert set(runs["status"]) == {"ok"}, list(runs["error"])
    for db in runs["database"]:
        jobs = mltwin.read_table(db, "jobs").set_index("name")
        assert (jobs.loc["c", "end_ns"] - jobs.loc["c", "submit_ns"]) == 4807050 * 1_000_000


def one_model_queue_scenario(source_dir, users):
    """The blog's DJL scenario cut down to one ml.c5d.18xlarge, one model with one worker
    (minWorkers = maxWorkers = 1: DJL never scales), and `users` Locust users that each send
    exactly one request: spawned 10 ms apart (spawn_rate 100/s), they all arrive within
    (users - 1) x 10 ms + 1 ms of overhead, while the first one's download (100 ms) and load
    (1 s) are under way, so all of them wait for the load and enter the job queue at one instant,
    in arrival order. Their next request would come 1000 s later, after the 10 s of traffic."""
    sc = mltwin.load_scenario(source_dir / "scenarios" / "mme-djl-blog-uniform.json")
    const = lambda d: {"constant": d, "source": "test"}  # noqa: E731
    sc["endpoint"]["initial_instances"] = 1
    sc["endpoint"]["overhead"] = const("1ms")
    sc["endpoint"]["s3"]["first_byte"] = const("100ms")
    sc["endpoint"]["model_load"]["fixed"] = const("1s")
    sc["server"]["serving_properties"].update({"minWorkers": 1, "maxWorkers": 1})
    sc["models"]["copies"]["count"] = 1
    sc["models"]["copies"]["model"]["service"]["base"] = const("50ms")
    sc["traffic"]["locust"].update({"users": users, "spawn_rate": 100, "wait_time": {"constant": "1000s"},
                                    "duration": "10s",
                                    "tasks": [{"name": "t", "weight": 1, "popularity": {"uniform": {"first": 0, "last": 0}}}]})
    return sc


def test_inference_sweep_job_queue_size(source_dir, tmp_path):
    # DJL 0.23.0's admission (WorkLoadManager.runJob): 503 when the queue has one slot left and
    # every worker is busy. When the load completes the worker is free: the first request runs at
    # once, the next ones queue while the queue has more than one free slot, i.e. up to Q - 1
    # queued beside the running one. So of N simultaneous requests min(N, Q) are served and
    # max(0, N - Q) answered 503, whatever the seed; the longest queue is min(N, Q) - 1.
    n = 12
    sizes = [1, 4, 8, 16]
    runs, points = mltwin.sweep(one_model_queue_scenario(source_dir, n),
                                {"/server/serving_properties/job_queue_size": sizes}, seeds=[1, 2],
                                n_workers=2, out_dir=tmp_path, progress=False)
    assert set(runs["status"]) == {"ok"}, list(runs["error"])
    by = points.set_index("/server/serving_properties/job_queue_size")
    for q in sizes:
        assert by.loc[q, "requests.mean"] == n
        assert by.loc[q, "served.mean"] == min(n, q), q
        assert by.loc[q, "rejected_503.mean"] == max(0, n - q), q
        assert by.loc[q, "rejected_503.ci"] == 0.0  # the same in every seed
        assert by.loc[q, "max_queue_seen.mean"] == min(n, q) - 1, q
        assert by.loc[q, "loads.mean"] == 1 and by.loc[q, "workers_added.mean"] == 0

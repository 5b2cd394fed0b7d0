"""mltwin.compare (docs/compare.md) on a run of the shipped job history: every figure recomputed
here independently — actual starts from the CSV with Python's datetime, predicted starts from the
run's jobs table, the median with statistics.median, the KS distance from its definition."""
import csv
import json
import os
import sqlite3
import statistics
import subprocess
from datetime import datetime

import pytest

import mltwin

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCENARIO = os.path.join(ROOT, "scenarios", "eks-history-csv.json")
HISTORY = os.path.join(ROOT, "scenarios", "history", "jobs.csv")


def ts(text):
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def ks(a, b):
    xs = sorted(set(a) | set(b))
    return max(abs(sum(v <= x for v in a) / len(a) - sum(v <= x for v in b) / len(b)) for x in xs)


@pytest.fixture(scope="module")
def run_db(tmp_path_factory):
    path = tmp_path_factory.mktemp("cmp") / "h.sqlite"
    mltwin.Run(SCENARIO, out=path).run()
    return path


def test_compare_recomputed(run_db):
    c = mltwin.compare(HISTORY, run_db)
    with open(HISTORY, newline="") as f:
        rows = list(csv.DictReader(f))
    t0 = min(ts(r["submit_time"]) for r in rows)
    with sqlite3.connect(run_db) as db:
        twin = {n: (s / 1e9, None if st is None else st / 1e9) for n, s, st in db.execute("SELECT name, submit_ns, start_ns FROM jobs")}
    errors, actual_wait, predicted_wait = [], [], []
    for r, j in zip(rows, c["jobs"]):
        assert j["name"] == r["name"]
        assert j["submit_s"] == pytest.approx(ts(r["submit_time"]) - t0)
        actual = ts(r["start_time"]) - t0 if r["start_time"] else None
        predicted = twin[r["name"]][1]
        assert j["actual_start_s"] == (pytest.approx(actual) if actual is not None else None)
        assert j["predicted_start_s"] == (pytest.approx(predicted) if predicted is not None else None)
        if actual is not None and predicted is not None:
            errors.append(predicted - actual)
            actual_wait.append(actual - j["submit_s"])
            predicted_wait.append(predicted - j["submit_s"])
    assert c["compared"] == len(errors) == sum(1 for r in rows if r["start_time"])
    assert c["start_error"]["median_absolute_s"] == pytest.approx(statistics.median(abs(e) for e in errors))
    assert c["start_error"]["mean_s"] == pytest.approx(statistics.fmean(errors))
    assert c["queueing_wait"]["ks_distance"] == pytest.approx(ks(actual_wait, predicted_wait))
    assert c["queueing_wait"]["actual"]["p50_s"] == pytest.approx(statistics.median(actual_wait))
    assert c["queueing_wait"]["predicted"]["max_s"] == pytest.approx(max(predicted_wait))
    assert "median absolute error" in c["report"]


def test_compare_errors_and_cli(run_db, cli, tmp_path):
    with pytest.raises(mltwin.ScenarioError, match=r"jobs.csv:2: column"):
        bad = tmp_path / "jobs.csv"
        bad.write_text("name,namespace,queue,submit_time,start_time,end_time,status,tasks\n"
                       "a,ns,default,yesterday,,,Pending,worker:1:cpu=1\n")
        mltwin.compare(bad, run_db)
    out = subprocess.run([cli, "compare", HISTORY, str(run_db), "--json", "-"], check=True, capture_output=True, text=True).stdout
    assert json.loads(out)["compared"] == mltwin.compare(HISTORY, run_db)["compared"]


def test_anonymized_run_and_compare(run_db, cli, tmp_path):
    """Run(anonymize=True) (docs/privacy.md): the database names no job, queue or namespace of the
    history (read here from the CSV), the name map is beside it, and compare through the map
    gives the figures of the run with real names."""
    anon = tmp_path / "a.sqlite"
    run = mltwin.Run(SCENARIO, out=anon, anonymize=True)
    run.run()
    assert run.name_map == str(tmp_path / "a.names.json")
    with open(HISTORY, newline="") as f:
        rows = list(csv.DictReader(f))
    secrets = {r[k] for r in rows for k in ("name", "namespace", "queue")} | {"history/jobs.csv"}
    with sqlite3.connect(anon) as db:
        tables = [t for (t,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        cells = [str(v) for t in tables for row in db.execute(f'SELECT * FROM "{t}"') for v in row]
    assert not [(s, c) for s in secrets for c in cells if s in c]
    with open(run.name_map) as f:
        names = json.load(f)
    assert set(names["jobs"]) == {r["name"] for r in rows}
    with pytest.raises(ValueError, match="give its name map"):
        mltwin.compare(HISTORY, anon)
    real, through_map = mltwin.compare(HISTORY, run_db), mltwin.compare(HISTORY, anon, name_map=run.name_map)
    assert through_map["jobs"] == real["jobs"]
    assert through_map["start_error"] == real["start_error"]
    out = subprocess.run([cli, "compare", HISTORY, str(anon), "--name-map", run.name_map, "--json", "-"], check=True,
                         capture_output=True, text=True).stdout
    assert json.loads(out)["start_error"] == real["start_error"]
    with pytest.raises(ValueError, match="give anonymize too"):
        mltwin.Run(SCENARIO, out=tmp_path / "b.sqlite", name_map=tmp_path / "b.json")

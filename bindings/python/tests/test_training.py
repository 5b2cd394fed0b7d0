"""A training run from Python, checked against a timeline derived by hand.

tests/scenarios/tiny-gang.json: 4 whole-node trn1.32xlarge (64 Trainium devices), one queue,
Volcano's default configuration (overcommit factor 1.2: at most 1.2 x 64 = 76.8 devices of
Inqueue PodGroups); jobs a and b (4 nodes, 1 h) submitted at 0 s, c (2 nodes, 30 min) at 600 s;
bind latency 50 ms, pod start-up 2 s (constants), schedule period 1 s aligned to t = 0.

A job admitted (Inqueue) at the session of second s has its pods created then, bound at
s + 1 s + 50 ms (placed at the next session, plus the bind latency), running 2 s later, and
ends its duration after that. Hence (the first of a/b is chosen by the Kubernetes UID tie-break,
which the seed decides):
  first:  Inqueue 0 s, scheduled 1.05 s, start 3.05 s, end 3603.05 s;
  second: the other 64-device gang cannot be admitted while the first is Inqueue/Running
          (64 + 64 > 76.8), nor c (64 + 32 > 76.8); at the session of 3604 s b (created
          first) is admitted, c is not (64 + 32 > 76.8): scheduled 3605.05, start 3607.05,
          end 7207.05 s;
  c:      admitted at 7208 s: scheduled 7209.05, start 7211.05, end 9011.05 s.
"""
import json
import os
import sqlite3
import subprocess

import pandas as pd
import pytest

import mltwin

S = 1_000_000_000
MS = 1_000_000


def times(jobs: pd.DataFrame, name: str):
    row = jobs[jobs["name"] == name].iloc[0]
    return int(row["scheduled_ns"]), int(row["start_ns"]), int(row["end_ns"])


def test_tiny_gang_timeline_by_hand(tiny_gang):
    run = mltwin.Run(tiny_gang)
    run.run()
    jobs = run.jobs()
    assert list(jobs["phase"]) == ["Completed"] * 3
    first, second = sorted(["a", "b"], key=lambda n: times(jobs, n)[0])
    assert times(jobs, first) == (1050 * MS, 3050 * MS, 3603050 * MS)
    assert times(jobs, second) == (3605050 * MS, 3607050 * MS, 7207050 * MS)
    assert times(jobs, "c") == (7209050 * MS, 7211050 * MS, 9011050 * MS)
    s = run.summary()
    assert s["phases"] == {"Completed": 3}
    # A finished run is where it ended, its last event: the session of 9012 s, the first after
    # c's pods succeeded at 9011.05 s, which marks c's PodGroup Completed — not the metrics
    # sample the simulator's clock may have moved to after it.
    assert run.now_ns == 9012 * S
    assert run.now == pytest.approx(s["sim_end_s"])
    # Queueing = submit -> gang placed: 1.05 s, 3605.05 s and 7209.05 - 600 s.
    assert s["queueing_s"]["mean"] == pytest.approx((1.05 + 3605.05 + 6609.05) / 3)


def test_changing_a_parameter_shifts_the_timeline_as_predicted(tiny_gang):
    # Pod start-up 2 s -> 5 s: every start and end moves 3 s later per job ahead in line, and
    # the admission of the next job moves with the end it waits for (to the next whole second).
    sc = tiny_gang.copy().set("/lifecycle/pod_startup/constant", "5s")
    run = mltwin.Run(sc)
    run.run()
    jobs = run.jobs()
    first, second = sorted(["a", "b"], key=lambda n: times(jobs, n)[0])
    assert times(jobs, first) == (1050 * MS, 6050 * MS, 3606050 * MS)
    # first ends 3606.05 -> admitted at 3607 -> bound 3608.05 -> running 3613.05 -> ends 7213.05
    assert times(jobs, second) == (3608050 * MS, 3613050 * MS, 7213050 * MS)
    # admitted at 7214 -> bound 7215.05 -> running 7220.05 -> ends 9020.05
    assert times(jobs, "c") == (7215050 * MS, 7220050 * MS, 9020050 * MS)


def test_state_between_steps(tiny_gang):
    run = mltwin.Run(tiny_gang)
    run.run_until("30m")
    assert run.now == pytest.approx(1800.0)
    st = run.state()
    phases = {j["name"]: j["phase"] for j in st["jobs"]}
    running = [n for n, p in phases.items() if p == "Running"]
    assert len(running) == 1 and running[0] in ("a", "b")
    # The other gang and c wait without pods (never admitted).
    waiting = {n: p for n, p in phases.items() if n != running[0]}
    assert waiting == {("b" if running[0] == "a" else "a"): "Pending", "c": "Pending"}
    # Every node holds one whole-node pod: 32 NeuronCores of 32.
    assert [n["neuroncores_used"] for n in st["nodes"]] == [32.0] * 4
    assert [n["pods"] for n in st["nodes"]] == [1] * 4
    # Rows recorded so far are visible before the run ends.
    assert len(run.table("pods")) >= 4
    run.run()
    assert run.state()["jobs"] == []  # nothing left that is not completed


def test_stepping_changes_nothing(tiny_gang, tmp_path):
    one = mltwin.Run(tiny_gang, out=tmp_path / "one.sqlite")
    one.run()
    steps = mltwin.Run(tiny_gang, out=tmp_path / "steps.sqlite")
    for t in ["1s", "1.5s", 600, "59m", "2h", "2.5h"]:
        steps.run_until(t)
    steps.run()
    for table in ["jobs", "pods", "decisions", "phases", "cluster_metrics"]:
        pd.testing.assert_frame_equal(one.table(table), steps.table(table))


def test_tables_match_an_independent_sqlite_reader(tiny_gang, tmp_path):
    db = tmp_path / "run.sqlite"
    run = mltwin.Run(tiny_gang, out=db, seed=11)
    run.run()
    with sqlite3.connect(db) as con:
        for table in ["jobs", "pods", "run_meta"]:
            ref = pd.read_sql(f"SELECT * FROM {table}", con)
            got = run.table(table)
            assert list(got.columns) == list(ref.columns)
            assert len(got) == len(ref)
            for c in ref.columns:
                assert [None if pd.isna(x) else x for x in got[c]] == [None if pd.isna(x) else x for x in ref[c]], c
    # The same file through mltwin.read_table (read-only), after the Run is gone.
    del run
    assert len(mltwin.read_table(db, "jobs")) == 3
    # A NULL in an integer column (a job's end before it ends) keeps nanosecond precision:
    # pandas' nullable Int64, not float.
    r2 = mltwin.Run(tiny_gang)
    r2.run_until("10m")
    jobs = r2.jobs()
    assert str(jobs["end_ns"].dtype) == "Int64"
    # A column of NULLs only keeps the type its table declares: `nodes` is TEXT (NULL until a
    # job's outcome is written, at its end), `end_ns` INTEGER; an expression has no
    # declaration and stays Int64.
    none = r2.query("SELECT nodes, end_ns, NULL AS x FROM jobs WHERE nodes IS NULL")
    assert len(none) == 3
    assert none["nodes"].dtype == object and list(none["nodes"]) == [None] * 3
    assert str(none["end_ns"].dtype) == "Int64"
    assert str(none["x"].dtype) == "Int64"


def test_the_cli_and_python_write_the_same_tables(tiny_gang, tmp_path, cli):
    import subprocess

    src = tiny_gang.path
    subprocess.run([cli, "run", src, "--seed", "3", "--no-progress", "--out", str(tmp_path / "cli.sqlite")],
                   check=True, capture_output=True)
    run = mltwin.Run(src, seed=3, out=tmp_path / "py.sqlite")
    run.run()
    for table in ["jobs", "pods", "decisions", "phases", "cluster_metrics", "inputs"]:
        pd.testing.assert_frame_equal(mltwin.read_table(tmp_path / "cli.sqlite", table), run.table(table))
    meta_cli = mltwin.read_table(tmp_path / "cli.sqlite", "run_meta").set_index("key")["value"]
    meta_py = run.table("run_meta").set_index("key")["value"]
    for key in ["seed", "scenario_json", "end_reason", "end_ns", "rng_streams", "volcano_release"]:
        assert meta_cli[key] == meta_py[key], key


def test_bad_input_is_a_clear_error(tiny_gang):
    bad = tiny_gang.copy().set("/workload/jobs/0/nnodes", "four")
    with pytest.raises(mltwin.ScenarioError, match=r"/workload/jobs/0/nnodes: expected integer"):
        mltwin.Run(bad)
    with pytest.raises(ValueError, match="expected seconds or a duration"):
        mltwin.Run(tiny_gang).run_until("ten minutes")
    with pytest.raises(ValueError, match="plain name"):
        mltwin.Run(tiny_gang).table("jobs; DROP TABLE jobs")
    with pytest.raises(RuntimeError, match="no such table"):
        mltwin.Run(tiny_gang).table("requests")
    with pytest.raises(ValueError, match="seed"):
        mltwin.Run(tiny_gang, seed=-1)
    with pytest.raises(FileNotFoundError):
        mltwin.load_scenario("/nonexistent/scenario.json")
    with pytest.raises(ValueError, match="max_jobs"):
        mltwin.Run(tiny_gang, max_jobs=-3)
    with pytest.raises(ValueError, match="max_jobs"):
        mltwin.Run(tiny_gang, max_jobs="3")
    with pytest.raises(ValueError, match="non-negative time"):
        mltwin.Run(tiny_gang).run_until("-1s")
    r = mltwin.Run(tiny_gang)
    r.run_until("10m")
    with pytest.raises(ValueError, match="before now"):
        r.run_until("5m")
    assert r.now == 600.0  # nothing happened
    with pytest.raises(ValueError, match=r"/queues/9/weight: /queues: index 9 is past the end"):
        tiny_gang.copy().set("/queues/9/weight", 2)
    with pytest.raises(ValueError, match=r"/queues/first/weight: /queues is a list; expected an index"):
        tiny_gang.copy().set("/queues/first/weight", 2)


def test_a_cpp_runtime_error_keeps_its_message(tiny_gang, tmp_path):
    # The database cannot be created inside a regular file: SqliteStore's message, unchanged.
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(RuntimeError, match=r"cannot create results database '.*file/x\.sqlite'"):
        mltwin.Run(tiny_gang, out=blocker / "x.sqlite")


def test_until_stops_and_records_it(tiny_gang):
    run = mltwin.Run(tiny_gang)
    run.run("30m")
    meta = run.table("run_meta").set_index("key")["value"]
    assert meta["end_reason"] == "until"
    assert int(meta["end_ns"]) == 1800 * S
    phases = run.jobs().set_index("name")["phase"]
    assert sorted(phases) == ["Pending", "Pending", "Running"]


def test_the_type_stub_is_valid_python():
    # stubgen turns docstrings of the form "X: text" into types; a docstring like that once
    # made the stub unparseable ("import Queue spec"). The stub must at least parse.
    import ast
    import os

    stub = os.path.join(os.path.dirname(mltwin.__file__), "_mltwin.pyi")
    if not os.path.exists(stub):
        pytest.skip("no stub (python3-mypy's stubgen was not found at build time)")
    with open(stub, encoding="utf-8") as f:
        ast.parse(f.read(), stub)


def test_summary_dict_has_the_job_controllers_figures(source_dir):
    # evict-restart.json (TorchX max_retries 3, checkpoint every 5 min): reclaim evicts one of
    # lo's pods at 1001 s (one eviction), the job controller restarts lo once (RestartJob, retry
    # 1 of 3) and it later completes; nothing Failed, Aborted or stuck. Training lost: 97.95 s
    # since the last checkpoint (test_training.cpp's evict-restart derivation), on 2 pods x 32
    # NeuronCores.
    run = mltwin.Run(mltwin.load_scenario(source_dir / "tests" / "scenarios" / "evict-restart.json"))
    run.run()
    life = run.summary()["lifecycle"]
    assert (life["evictions"], life["restarts"], life["failed_max_retry"], life["stuck"]) == (1, 1, 0, 0)
    assert (life["aborted"], life["terminated"], life["completed_by_policy"]) == (0, 0, 0)
    assert life["lost_training_s"] == pytest.approx(97.95)
    assert life["lost_neuroncore_s"] == pytest.approx(97.95 * 64)


def test_instance_catalog_is_the_one_runs_read(source_dir, tiny_gang, tmp_path, monkeypatch):
    import json

    import mltwin

    monkeypatch.delenv("MLTWIN_CATALOG", raising=False)
    shipped = json.loads((source_dir / "catalog" / "aws-instance-types.json").read_text())
    cat = mltwin.instance_catalog()
    assert set(cat) == {r["name"] for r in shipped["instance_types"]}
    # trn1.32xlarge as the Neuron docs and the device plugin count it: 16 devices x 2 cores.
    t = cat["trn1.32xlarge"]
    assert t["extended_resources"]["aws.amazon.com/neuroncore"] == 16 * 2
    assert t["on_demand_usd_per_hour"] == 21.5
    # MLTWIN_CATALOG names another catalog: instance_catalog and a run read it.
    mine = tmp_path / "cat.json"
    row = dict(t, on_demand_usd_per_hour=30.0)
    mine.write_text(json.dumps({"instance_types": [row]}))
    assert mltwin.instance_catalog(mine)["trn1.32xlarge"]["on_demand_usd_per_hour"] == 30.0
    monkeypatch.setenv("MLTWIN_CATALOG", str(mine))
    run = mltwin.Run(tiny_gang)
    run.run()
    inputs = run.query("SELECT role, path FROM inputs")
    assert ("instance_catalog", "cat.json") in list(zip(inputs["role"], inputs["path"]))
    # A catalog file that is not there is a ScenarioError naming it.
    monkeypatch.setenv("MLTWIN_CATALOG", str(tmp_path / "none.json"))
    with pytest.raises(mltwin.ScenarioError, match="MLTWIN_CATALOG names"):
        mltwin.instance_catalog()


def test_a_misspelt_plugin_argument_warns_and_strict_refuses_it(source_dir):
    """nodeorder reads mostrequested.weight (Volcano v1.12.1 nodeorder.go:55); a misspelt key is
    ignored by Volcano, so mltwin warns with the key it is near, and strict=True refuses it."""
    import json
    with open(f"{source_dir}/tests/scenarios/tiny-gang.json") as f:
        doc = json.load(f)
    doc["volcano"]["tiers"][1]["plugins"][4]["arguments"] = {"mostrequested.wieght": 10}
    path = f"{source_dir}/tests/scenarios/tiny-gang.json"
    with pytest.warns(mltwin.ScenarioWarning, match="did you mean 'mostrequested.weight'"):
        run = mltwin.Run(doc, path=path)
    assert len(run.warnings) == 1
    assert "/volcano/tiers/1/plugins/4/arguments/mostrequested.wieght" in run.warnings[0]
    with pytest.raises(mltwin.ScenarioError, match="--strict: warnings are errors"):
        mltwin.Run(doc, path=path, strict=True)
    doc["volcano"]["tiers"][1]["plugins"][4]["arguments"] = {"mostrequested.weight": 10}
    assert mltwin.Run(doc, path=path).warnings == []


def test_snapshot_is_what_kubectl_prints_and_mltwin_scheduler_decides_as_the_twin(tiny_gang, tmp_path, source_dir):
    # At 30 min (see the module docstring): one 4-node gang Running, one pod on each node; the
    # other gang and c Pending without pods. A session then decides nothing: neither waiting
    # PodGroup fits under the overcommit bound (64 + 64 > 76.8, 64 + 32 > 76.8).
    run = mltwin.Run(tiny_gang)
    run.run_until("30m")
    snap = run.snapshot()
    assert snap["kind"] == "List" and snap["apiVersion"] == "v1"
    kinds = {}
    for item in snap["items"]:
        kinds.setdefault(item["kind"], []).append(item)
    assert len(kinds["Node"]) == 4
    assert len(kinds["PodGroup"]) == 3
    phases = sorted(g["status"]["phase"] for g in kinds["PodGroup"])
    assert phases == ["Pending", "Pending", "Running"]
    volcano_pods = [p for p in kinds["Pod"] if p["spec"]["schedulerName"] == "volcano"]
    assert len(volcano_pods) == 4
    assert sorted(p["spec"]["nodeName"] for p in volcano_pods) == sorted(n["metadata"]["name"] for n in kinds["Node"])
    assert all(p["status"]["phase"] == "Running" for p in volcano_pods)
    (meta,) = kinds["ConfigMap"]
    assert meta["data"]["now"] == "2000-01-01T00:30:00Z"  # the twin's time 0 is 2000-01-01T00:00:00Z (data.epoch)
    assert meta["data"]["epoch"] == "2000-01-01T00:00:00Z"
    scheduler = os.environ.get("MLTWIN_SCHEDULER_CLI", str(source_dir / "build" / "apps" / "mltwin-scheduler"))
    if not os.path.exists(scheduler):
        pytest.skip(f"mltwin-scheduler is not built at {scheduler}")
    path = tmp_path / "snap.json"
    path.write_text(json.dumps(snap))
    out = subprocess.run([scheduler, "--once", "--snapshot", str(path), "--output", "json"], check=True,
                         capture_output=True, text=True).stdout
    d = json.loads(out)
    assert d["now"] == "2000-01-01T00:30:00Z"
    assert d["binds"] == [] and d["evictions"] == [] and d["podgroup_phases"] == []
    assert d["counts"]["nodes"] == 4 and d["counts"]["pods"] == 4


def test_snapshot_of_an_inference_run_is_refused(source_dir, tmp_path):
    run = mltwin.Run(source_dir / "scenarios" / "mme-djl-blog-top-n.json", out=tmp_path / "i.sqlite")
    with pytest.raises(RuntimeError, match="training runs only"):
        run.snapshot()

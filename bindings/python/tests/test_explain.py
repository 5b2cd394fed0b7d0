"""`mltwin explain` / mltwin.explain on tiny-gang (timeline in test_training.py, derived by hand):
c (2 nodes, submitted at 600 s) waits for admission — the overcommit plugin's "resource in
cluster is overused" — until the session of 7208 s, the first after the second 4-node gang
completed (7207.05 s, its 4 pods x 16 devices released); it is placed at 7209 s and its pods
bound 50 ms later."""
import subprocess

import pytest

import mltwin


@pytest.fixture
def db(tiny_gang, tmp_path):
    path = tmp_path / "tg.sqlite"
    mltwin.Run(tiny_gang, out=path).run()
    return path


def test_explain_a_job_that_waited(db):
    text = mltwin.explain(str(db), "c")
    # The second gang is whichever of a/b the seed placed second; read it from the database.
    jobs = mltwin.read_table(db, "jobs").set_index("name")
    second = "a" if jobs.loc["a", "start_ns"] > jobs.loc["b", "start_ns"] else "b"
    second_id = int(jobs.loc[second, "job"])
    assert "Job c (job 2) in queue default: 2 pod(s) x 16 Neuron device(s)" in text
    assert "00:10:00 .. 02:00:08 (1h50m08s): Unschedulable by overcommit: resource in cluster is overused" in text
    assert "overcommit-factor (default 1.2)" in text
    assert (f"admitted at 02:00:08 after job {second} (job {second_id}) completed at 02:00:07.050, "
            "releasing 4 pod(s) x 16 Neuron device(s).") in text
    assert "02:00:09.050  +1h50m09s     2 pod(s) Bound on trn1-" in text
    assert "placed after 1h50m09s of queueing; ran 30m00s" in text


def test_explain_a_job_that_never_waited(db):
    jobs = mltwin.read_table(db, "jobs").set_index("name")
    first = "a" if jobs.loc["a", "start_ns"] < jobs.loc["b", "start_ns"] else "b"
    text = mltwin.explain(str(db), str(int(jobs.loc[first, "job"])))  # by id
    assert "it never waited" in text
    assert "placed after 1.05 s of queueing" in text


def test_explain_errors_and_cli(db, cli):
    with pytest.raises(ValueError, match="no job named or numbered 'zz'"):
        mltwin.explain(str(db), "zz")
    out = subprocess.run([cli, "explain", str(db), "c"], check=True, capture_output=True, text=True).stdout
    assert out == mltwin.explain(str(db), "c")
    bad = subprocess.run([cli, "explain", str(db), "zz"], capture_output=True, text=True)
    assert bad.returncode == 2 and "no job named or numbered 'zz'" in bad.stderr


def test_explain_a_refused_job_does_not_say_it_never_waited(tmp_path):
    # tests/scenarios/reject-oversize.json with /cluster/admission/refuse_unplaceable: a job
    # larger than the cluster is Refused at submission; explain gives the reason and nothing
    # else about waiting.
    import os
    import pathlib
    src = pathlib.Path(os.environ.get("MLTWIN_SOURCE_DIR", pathlib.Path(__file__).resolve().parents[3]))
    path = str(src / "tests/scenarios/reject-oversize.json")
    db = tmp_path / "r.sqlite"
    mltwin.Run(path, out=db, overrides={"cluster": {"admission": {"refuse_unplaceable": True}}}).run()
    jobs = mltwin.read_table(db, "jobs")
    refused = jobs[jobs["phase"] == "Refused"]
    assert len(refused) == 1
    text = mltwin.explain(str(db), str(refused.iloc[0]["name"]))
    assert "Refused" in text
    assert "can never be placed" in text
    assert "it never waited" not in text

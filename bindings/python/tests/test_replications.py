"""`mltwin run --replications N`: N seeds, one database each, and every summary figure's mean
with its 95 % Student-t interval — checked against the databases themselves and the t table
(t(0.975, 2) = 4.302652729911275)."""
import json
import math
import re
import subprocess

import mltwin


def test_replications_mean_and_interval(tiny_gang, tmp_path, cli):
    sc = tiny_gang.copy()
    sc["lifecycle"]["pod_startup"] = {"uniform": ["1s", "9s"], "source": "test"}
    sc["seed"] = 5
    path = tmp_path / "tg.json"
    path.write_text(json.dumps(sc))
    res = subprocess.run([cli, "run", str(path), "--replications", "3", "--no-progress", "--out", str(tmp_path / "r.sqlite")],
                         check=True, capture_output=True, text=True)
    dbs = [tmp_path / f"r-seed{s}.sqlite" for s in (5, 6, 7)]
    jct = []
    for db in dbs:
        meta = mltwin.read_table(db, "run_meta").set_index("key")["value"]
        jobs = mltwin.read_table(db, "jobs")
        jct.append(float(((jobs["end_ns"] - jobs["submit_ns"]) / 1e9).mean()))
        assert meta["end_reason"] == "completed"
    mean = sum(jct) / 3
    s = math.sqrt(sum((x - mean) ** 2 for x in jct) / 2)
    assert s > 0
    line = next(l for l in res.stdout.splitlines() if l.strip().startswith("jct_s.mean "))
    got_mean, got_half = (float(x) for x in line.split()[1:3])
    assert math.isclose(got_mean, mean, rel_tol=1e-5)
    assert math.isclose(got_half, 4.302652729911275 * s / math.sqrt(3), rel_tol=1e-3)
    assert "seeds 5..7" in res.stdout
    assert "pod start-up latency" in res.stdout  # what the seed changes
    bad = subprocess.run([cli, "run", str(path), "--replications", "0"], capture_output=True, text=True)
    assert bad.returncode == 2 and "--replications 0" in bad.stderr

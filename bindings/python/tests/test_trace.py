"""Chrome/Perfetto trace export, on tiny-gang (timeline by hand in test_training.py)."""
import json
import subprocess

import mltwin

US = 1_000_000  # µs per s


def test_tiny_gang_trace(tiny_gang, tmp_path):
    db = tmp_path / "tg.sqlite"
    mltwin.Run(tiny_gang, out=db).run()
    counts = mltwin.export_trace(str(db), str(tmp_path / "tg.json"))
    doc = json.loads((tmp_path / "tg.json").read_text())
    events = doc["traceEvents"]
    names = {e["pid"]: e["args"]["name"] for e in events if e["ph"] == "M" and e["name"] == "process_name"}
    assert sorted(v for v in names.values() if v.startswith("node ")) == ["node trn1-0", "node trn1-1", "node trn1-2", "node trn1-3"]
    slices = [e for e in events if e["ph"] == "X"]
    # 10 pods (4 + 4 + 2): each an occupancy slice and a nested "running" slice.
    assert len(slices) == 20 == counts["slices"]
    pods = [e for e in slices if e["name"] != "running"]
    c = sorted((e["ts"], e["dur"]) for e in pods if e["name"].startswith("c pod"))
    # c's pods: bound 7209.05 s, succeeded 9011.05 s.
    assert c == [(7209.05 * US, 1802.0 * US)] * 2
    first = sorted((e["ts"], e["dur"]) for e in pods if e["ts"] == 1.05 * US)
    assert first == [(1.05 * US, 3602.0 * US)] * 4  # bound 1.05 s, succeeded 3603.05 s
    running = sorted(e["ts"] for e in slices if e["name"] == "running")
    assert running[:4] == [3.05 * US] * 4
    # Pending jobs in queue "default": a, b at 0 (2); the first placed at 1.05 s (1); c at 600 s
    # (2); the second placed at 3605.05 s (1); c placed at 7209.05 s (0).
    pending = [(e["ts"], e["args"]["jobs"]) for e in events if e["ph"] == "C" and e["name"] == "pending default"]
    assert pending == [(0, 2), (1.05 * US, 1), (600 * US, 2), (3605.05 * US, 1), (7209.05 * US, 0)]


def test_cli_trace_and_an_inference_run(source_dir, tmp_path, cli):
    db = tmp_path / "topn.sqlite"
    run = mltwin.Run(str(source_dir / "scenarios" / "mme-djl-blog-top-n.json"), out=db)
    run.run("1m")
    out = subprocess.run([cli, "trace", str(db)], check=True, capture_output=True, text=True).stdout
    assert "topn.trace.json" in out
    doc = json.loads((tmp_path / "topn.trace.json").read_text())
    loads = [e for e in doc["traceEvents"] if e["ph"] == "X" and e["cat"] == "load"]
    events = run.table("model_events")
    assert len(loads) == (events["event"] == "LoadStart").sum()


def test_evictions_are_instants_on_their_nodes(source_dir, tmp_path):
    # evict-restart.json (test_training.cpp derives it): reclaim evicts lo's pod 0 at 1001 s and
    # the job controller kills its pod 1 at the same instant (RestartJob); nothing else is evicted.
    db = tmp_path / "er.sqlite"
    mltwin.Run(str(source_dir / "tests" / "scenarios" / "evict-restart.json"), out=db).run()
    mltwin.export_trace(str(db), str(tmp_path / "er.json"))
    events = json.loads((tmp_path / "er.json").read_text())["traceEvents"]
    instants = sorted((e["ts"], e["name"]) for e in events if e["ph"] in ("i", "I"))
    assert (1001 * US, "Evicted lo pod 0") in instants
    assert (1001 * US, "Killed lo pod 1") in instants
    assert [n for _, n in instants if n.startswith("Evicted")] == ["Evicted lo pod 0"]

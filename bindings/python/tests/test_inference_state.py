"""Inference state between steps, checked against the run's own event log: at any time, the
models an instance reports Loaded are exactly those whose last model event there is Loaded
(the event log and the live state are kept by different code), and its memory in use is what
the blog's models hold: 100 MiB (resident_size) per worker process of each loaded model, plus
the memory reserved by loads in progress (the models' resident size, one copy each)."""
import pytest

import mltwin

MIB = 1 << 20


def test_state_matches_the_event_log(source_dir):
    run = mltwin.Run(str(source_dir / "scenarios" / "mme-djl-blog-top-n.json"), seed=3)
    for t in ["2s", "20s", "1m"]:
        run.run_until(t)
        st = run.state()
        ev = run.table("model_events")
        ev = ev[ev["event"].isin(["Loaded", "Unloaded", "LoadFailed"])]
        last = ev.groupby(["instance", "model"])["event"].last()
        expect = {}
        for (inst, model), e in last.items():
            if e == "Loaded":
                expect.setdefault(int(inst), set()).add(int(model))
        assert len(st["instances"]) == 20
        workers = 0
        for inst in st["instances"]:
            loaded = {m["model"] for m in inst["models"] if m["state"] == "Loaded"}
            assert loaded == expect.get(inst["id"], set()), (t, inst["id"])
            loading = sum(1 for m in inst["models"] if m["state"] == "Loading")
            w = sum(m["workers"] for m in inst["models"])
            assert inst["memory_used_bytes"] == (w + loading) * 100 * MIB, (t, inst["id"])
            workers += w
        assert workers == st["workers"] > 0


def test_summary_before_finish_counts_cost_so_far(source_dir):
    # 20 ml.c5d.18xlarge in service from t = 0 at $4.147 per instance-hour (the scenario's
    # catalog); no scale-out can happen in the first minute (the high alarm needs 3 datapoints
    # of 1 minute). After 1 simulated minute: 20/60 instance-hours, 20 * 4.147 / 60 dollars.
    run = mltwin.Run(str(source_dir / "scenarios" / "mme-djl-blog-top-n.json"), seed=3)
    run.run_until("1m")
    s = run.summary()
    assert s["instance_hours"] == pytest.approx(20 / 60, rel=1e-12)
    assert s["cost_usd"] == pytest.approx(20 * 4.147 / 60, rel=1e-12)
    run.finish("until")
    assert run.summary()["cost_usd"] == pytest.approx(20 * 4.147 / 60, rel=1e-12)


def test_run_to_the_end_in_chunks(source_dir):
    # run() steps in 1 h chunks of simulated time; the last chunk passes the end of the
    # workload (90 s of traffic), and the run must still close at its last event, not at the
    # chunk's end (it used to fail: "close_period end ... is not within the period").
    path = str(source_dir / "scenarios" / "mme-djl-blog-top-n.json")
    run = mltwin.Run(path, seed=3, overrides={"traffic": {"locust": {"duration": "90s"}}})
    run.run()
    meta = run.table("run_meta").set_index("key")["value"]
    assert meta["end_reason"] == "completed"
    s = run.summary()
    assert s["requests"] == s["served"] + s["rejected_503"] + s["rejected_507"] and s["in_flight"] == 0
    assert s["unserved_at_end"] == 0
    # The same accounting in the database.
    assert int(meta["requests_arrived"]) == s["requests"] and int(meta["requests_served"]) == s["served"]
    assert int(meta["requests_unserved_at_end"]) == 0
    # The books close at the last event: after the 90 s of traffic, well before the 1 h chunk.
    assert 90e9 <= int(meta["end_ns"]) < 3600e9
    # An autoscaling policy that is not one is refused when the run is made.
    with pytest.raises(ValueError, match="autoscaling: expected a policy name, a choice"):
        mltwin.Run(path, autoscaling=42)

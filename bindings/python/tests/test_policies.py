"""Policies written in Python, run by the simulator; the built-ins called offline.

Expected values come from the rules themselves (DJL Serving 0.23.0's WorkLoadManager, cited in
policies/include/mltwin/policy/serving.hpp), from a hand-derived timeline (the LIFO plugin on
tiny-gang), or from an independent re-implementation (LRU in Python) that must make exactly the
built-in's decisions.
"""
import traceback

import pandas as pd
import pytest

import mltwin
from lifo_plugin import Lifo
from mltwin import policies as P

MS = 1_000_000


# ---- offline: the built-in DJL policy on hand-made observations ----

def pool(**kw):
    p = P.PoolObservation()
    p.min_workers, p.max_workers, p.batch_size, p.queue_capacity = 1, 4, 1, 1000
    for k, v in kw.items():
        setattr(p, k, v)
    return p


def test_djl_rules_offline():
    djl = P.DjlWlmPolicy()
    assert djl.name == "djl-wlm"
    # One slot left and every worker busy: 503 (WorkLoadManager.runJob), and a worker is tried.
    d = djl.on_arrival(pool(queue_size=999, workers_running=2, workers_busy=2, workers_started=0))
    assert (d.admit, d.add_worker) == (False, True)
    # One slot left but a worker is free (STARTED): admitted.
    d = djl.on_arrival(pool(queue_size=999, workers_running=2, workers_busy=1, workers_started=1))
    assert d.admit
    # Admitted; the queue then holds 3 > 2 x batch_size = 2 and 2 < max 4 run: add one worker.
    d = djl.on_arrival(pool(queue_size=2, workers_running=2, workers_busy=2, workers_started=0))
    assert (d.admit, d.add_worker) == (True, True)
    # Queue then holds 2, not more than 2 x batch_size: no worker.
    d = djl.on_arrival(pool(queue_size=1, workers_running=2, workers_busy=2, workers_started=0))
    assert (d.admit, d.add_worker) == (True, False)
    # A temporary worker idle (since it took its last batch) longer than max_idle_time retires.
    w = P.WorkerObservation()
    w.now, w.idle_since, w.temporary, w.max_idle_time = 70 * 10**9, 0, True, 60 * 10**9
    assert djl.on_worker_free(w).retire
    w.now = 30 * 10**9
    d = djl.on_worker_free(w)
    assert not d.retire and d.poll_deadline is not None


# ---- a scheduling plugin in Python ----

def with_first_tier_plugin(sc, name):
    sc = sc.copy()
    sc["volcano"]["tiers"][0]["plugins"].insert(0, {"name": name})
    return sc


def test_python_plugin_changes_the_order_as_derived(tiny_gang):
    # tiny-gang (see test_training.py) with LIFO first: when the first 4-node gang ends at
    # 3603.05 s, the session of 3604 s considers c (created at 600 s) before b (0 s): c is
    # admitted (64 - 64 + 32 <= 76.8), b then is not (32 + 64 > 76.8). c: bound 3605.05,
    # running 3607.05, ends 5407.05; b admitted at 5408: bound 5409.05, running 5411.05, ends
    # 9011.05.
    mltwin.register_plugin("test-lifo", Lifo)
    assert "test-lifo" in mltwin.registered_plugins()
    run = mltwin.Run(with_first_tier_plugin(tiny_gang, "test-lifo"))
    run.run()
    jobs = run.jobs().set_index("name")
    first = "a" if jobs.loc["a", "start_ns"] < jobs.loc["b", "start_ns"] else "b"
    second = "b" if first == "a" else "a"
    assert (jobs.loc["c", "scheduled_ns"], jobs.loc["c", "start_ns"], jobs.loc["c", "end_ns"]) == (
        3605050 * MS, 3607050 * MS, 5407050 * MS)
    assert (jobs.loc[second, "scheduled_ns"], jobs.loc[second, "end_ns"]) == (5409050 * MS, 9011050 * MS)


class Boom(P.Plugin):
    def on_session_open(self, ssn):
        def order(l, r):
            raise KeyError("plugin bug")
        ssn.add_job_order_fn(order)


def test_a_python_plugin_that_raises_stops_the_run_with_its_traceback(tiny_gang, tmp_path):
    mltwin.register_plugin("test-boom", Boom)
    db = tmp_path / "boom.sqlite"
    run = mltwin.Run(with_first_tier_plugin(tiny_gang, "test-boom"), out=db)
    with pytest.raises(KeyError, match="plugin bug") as info:
        run.run()
    assert "order" in "".join(traceback.format_tb(info.value.__traceback__))
    # The run is over, its database readable and marked failed at the time reached.
    with pytest.raises(RuntimeError, match="stopped on an error"):
        run.run_until("1h")
    meta = mltwin.read_table(db, "run_meta").set_index("key")["value"]
    assert meta["end_reason"] == "failed"
    assert len(mltwin.read_table(db, "jobs")) >= 1


class SeeWaitingTimes(P.Plugin):
    """Records each job's sla-waiting-time as a Python plugin sees it; votes nothing."""
    seen = {}

    def on_session_open(self, ssn):
        def vote(job):
            SeeWaitingTimes.seen[job.name] = job.sla_waiting_time_ns
            return 0
        ssn.add_job_enqueueable_fn(vote)


def test_a_python_plugin_reads_the_sla_waiting_time(source_dir):
    # sla-starvation.json: big carries the annotation sla-waiting-time 10m, the small jobs none.
    assert "sla" in mltwin.registered_plugins()
    mltwin.register_plugin("test-see-sla", SeeWaitingTimes)
    sc = with_first_tier_plugin(mltwin.load_scenario(source_dir / "tests" / "scenarios" / "sla-starvation.json"),
                                "test-see-sla")
    run = mltwin.Run(sc)
    run.run_until("300s")   # big (100 s) and s01 (260 s) are asked at enqueue while Pending
    assert SeeWaitingTimes.seen["big"] == 600 * 10**9
    assert SeeWaitingTimes.seen["s01"] == 0


# ---- serving policies in Python ----



class Delegate(P.AutoscalingPolicy):
    """Python wrapper around the built-in DJL rules: must change nothing."""

    name = "python-delegate"

    def __init__(self):
        self.inner = P.DjlWlmPolicy()
        self.calls = 0

    def on_arrival(self, pool):
        self.calls += 1
        return self.inner.on_arrival(pool)

    def on_worker_free(self, worker):
        return self.inner.on_worker_free(worker)


@pytest.mark.parametrize("idle_from_batch_end", [False, True])
def test_djl_rewritten_in_python_makes_the_builtin_decisions(source_dir, idle_from_batch_end):
    # mltwin.reference.DjlWlm re-states DJL 0.23.0's rules in Python; on the Azure trace
    # (long functions: temporary workers come and go, the idle rule matters) every table must
    # equal the built-in's, for DJL's idle rule and for the remedy.
    from mltwin.reference import DjlWlm

    sc = mltwin.load_scenario(source_dir / "scenarios" / "mme-azure-functions.json")
    sc["policies"]["autoscaling"] = {"name": "djl-wlm", "arguments": {"idle_from_batch_end": idle_from_batch_end}}
    ref = mltwin.Run(sc, seed=4)
    ref.run("40m")
    py = mltwin.Run(sc, seed=4, autoscaling=DjlWlm(idle_from_batch_end))
    py.run("40m")
    workers = ref.table("worker_events")
    assert (workers["event"] == "Retired").sum() > 0  # temporary workers retired by the idle rule
    for t in ["requests", "worker_events", "model_events", "endpoint_metrics"]:
        pd.testing.assert_frame_equal(ref.table(t), py.table(t))


def test_python_autoscaling_that_delegates_changes_nothing(source_dir):
    sc = source_dir / "scenarios" / "mme-djl-blog-top-n.json"
    ref = mltwin.Run(str(sc), seed=5)
    ref.run("20s")
    pol = Delegate()
    py = mltwin.Run(str(sc), seed=5, autoscaling=pol)
    py.run("20s")
    assert pol.calls > 1_000  # the policy decided every admission
    for t in ["requests", "worker_events", "model_events", "endpoint_metrics"]:
        pd.testing.assert_frame_equal(ref.table(t), py.table(t))


def test_python_lru_makes_the_builtin_lru_decisions(source_dir):
    # mltwin.reference.Lru: least recently inserted-or-accessed first, skipping models that
    # cannot be evicted; nothing when the evictable ones together are too small. MMS on the
    # blog's uniform pattern thrashes memory (models loaded and unloaded all the time), so the
    # cache policy decides often.
    from mltwin.reference import Lru as PyLru

    sc = source_dir / "scenarios" / "mme-mms-blog-uniform.json"
    ref = mltwin.Run(str(sc), seed=2)
    ref.run("15s")
    py = mltwin.Run(str(sc), seed=2, memory_cache=PyLru, disk_cache=PyLru)
    py.run("15s")
    events = ref.table("model_events")
    assert (events["event"] == "Unloaded").sum() > 10  # the test exercises eviction
    for t in ["model_events", "requests"]:
        pd.testing.assert_frame_equal(ref.table(t), py.table(t))


class Broken(P.AutoscalingPolicy):
    def on_arrival(self, pool):
        return "admit"  # not an AdmitDecision

    def on_worker_free(self, worker):
        return P.WorkerDecision()


def test_a_serving_policy_returning_the_wrong_type_is_a_clear_error(source_dir):
    run = mltwin.Run(str(source_dir / "scenarios" / "mme-djl-blog-top-n.json"), autoscaling=Broken())
    with pytest.raises(TypeError, match="on_arrival must return mltwin.policies.AdmitDecision, got str"):
        run.run("5s")
    with pytest.raises(ValueError, match="inference"):
        mltwin.Run(str(source_dir / "tests" / "scenarios" / "tiny-gang.json"), autoscaling=Broken())


@pytest.mark.parametrize("victims, message", [([999999], "not in this cache"), ("abc", "list of model ids"),
                                              ("dup", "listed twice")])
def test_bad_victims_are_a_clear_error_not_a_crash(source_dir, victims, message):
    from mltwin.reference import Lru

    class Bad(Lru):
        def choose_victims(self, bytes_needed, now, evictable):
            ok = super().choose_victims(bytes_needed, now, evictable)
            if victims == "dup":
                return None if not ok else ok + ok[:1]
            return victims

    run = mltwin.Run(str(source_dir / "scenarios" / "mme-mms-blog-uniform.json"), memory_cache=Bad)
    with pytest.raises((ValueError, TypeError), match=message):
        run.run("30s")


# ---- what a Python plugin sees of Kubernetes' node constraints ----

class SeeConstraints(P.Plugin):
    """Records the taints and tolerations its predicate sees; rejects nothing."""

    seen = {}

    def on_session_open(self, ssn):
        def look(task, node):
            SeeConstraints.seen[(task.name, node.name)] = (task.tolerations, node.taints, node.labels)
            return None
        ssn.add_predicate_fn(look)


def test_a_python_plugin_sees_taints_and_tolerations(source_dir):
    # tests/scenarios/k8s-constraints.json: 'neuron' nodes tainted aws.amazon.com/neuron=
    # true:NoSchedule; job 'tolerant' tolerates it (Exists, NoSchedule); 'plain-1' has none.
    sc = mltwin.load_scenario(source_dir / "tests" / "scenarios" / "k8s-constraints.json")
    mltwin.register_plugin("test-see", SeeConstraints)
    sc["volcano"]["tiers"][1]["plugins"].append({"name": "test-see"})
    SeeConstraints.seen = {}
    run = mltwin.Run(sc)
    run.run()
    neuron = [{"key": "aws.amazon.com/neuron", "value": "true", "effect": "NoSchedule"}]
    tol = [{"key": "aws.amazon.com/neuron", "operator": "Exists", "value": "", "effect": "NoSchedule"}]
    tolerations, taints, labels = SeeConstraints.seen[("tolerant-trainer-0-0", "neuron-0")]
    assert (tolerations, taints, labels["topology.kubernetes.io/zone"]) == (tol, neuron, "us-east-1a")
    tolerations, taints, _ = SeeConstraints.seen[("plain-1-trainer-0-0", "plain-0")]
    assert (tolerations, taints) == ([], [])
    # The built-in predicates ran first (same tier, earlier): plain-1's pod never reached this
    # plugin on a tainted node.
    assert ("plain-1-trainer-0-0", "neuron-0") not in SeeConstraints.seen
    jobs = run.jobs().set_index("name")
    assert jobs.loc["untolerated-2", "phase"] == "Refused"  # the scenario refuses unplaceable jobs


class SeeQueues(P.Plugin):
    """Records each queue as a Python plugin's queue order sees it; orders nothing."""
    seen = {}

    def on_session_open(self, ssn):
        def order(left, right):
            for q in (left, right):
                SeeQueues.seen[q.name] = (q.deserved.cpu, q.deserved.memory, q.deserved.get("aws.amazon.com/neurondevice"),
                                          q.deserved.get("vpc.amazonaws.com/efa"), q.deserved.names(), q.parent,
                                          q.guarantee.cpu, q.capability)
            return 0
        ssn.add_queue_order_fn(order)


def test_a_python_plugin_sees_the_queues_capacity_fields(source_dir):
    # reclaim-churn.json: queues a and b each deserve 192 CPUs, 768 GiB, 24 Neuron devices
    # (aws.amazon.com/neurondevice) and 12 EFA, nothing else; no parent, no guarantee, no
    # capability (None: Volcano's nil, no limit).
    mltwin.register_plugin("test-see-queues", SeeQueues)
    sc = mltwin.load_scenario(source_dir / "tests" / "scenarios" / "reclaim-churn.json")
    sc["volcano"]["tiers"][0]["plugins"].append({"name": "test-see-queues"})
    SeeQueues.seen = {}
    mltwin.Run(sc).run_until("1100s")  # b1 arrives at 1000 s: from then on two queues are ordered
    expected = (192.0, 768 * 2**30, 24.0, 12.0,
                ["cpu", "memory", "aws.amazon.com/neurondevice", "vpc.amazonaws.com/efa"], None, 0.0, None)
    assert SeeQueues.seen == {"a": expected, "b": expected}

"""Python cannot crash the process (issue 14, item 1): whatever a plugin written in Python does
- an order that is not a strict weak order, an object kept past its callback or its Run, a
built-in name registered again, a wrong answer - the result is a Python exception that names
the plugin and the callback, never a segfault or heap corruption.

Before these rules, the random job order below ended the interpreter in ``free(): invalid
pointer`` or SIGSEGV (std::sort with an inconsistent comparator), and a kept Session or JobInfo
read freed memory.
"""
import copy
import gc
import math
import random

import numpy as np
import pytest

import mltwin
from mltwin import policies as P


def with_first_tier_plugin(sc, name):
    sc = copy.deepcopy(sc)
    sc["volcano"]["tiers"][0]["plugins"].insert(0, {"name": name})
    return sc


def meta(db):
    return mltwin.read_table(db, "run_meta").set_index("key")["value"]


# ---- orders that are not strict weak orders ----

def random_order(kind):
    class RandomOrder(P.Plugin):
        def on_session_open(self, ssn):
            rng = random.Random(7)  # the same answers in every run: the outcome is reproducible
            getattr(ssn, f"add_{kind}_order_fn")(lambda l, r: rng.choice([-1, 0, 1]))
    return RandomOrder


def test_a_job_order_answering_at_random_on_philly_is_a_clear_error(source_dir, tmp_path):
    mltwin.register_plugin("test-random-job-order", random_order("job"))
    sc = with_first_tier_plugin(mltwin.load_scenario(source_dir / "scenarios" / "eks-trn1-philly.json"),
                                "test-random-job-order")
    db = tmp_path / "random.sqlite"
    run = mltwin.Run(sc, out=db, max_jobs=3000)
    with pytest.raises(RuntimeError, match=r"^plugin 'test-random-job-order': its job order function "
                                           r"\(add_job_order_fn\) is not a strict weak order: it answered -?\d for "
                                           r"\(job 'philly-\d+', job 'philly-\d+'\)"):
        run.run()
    # The run is over, its database readable and marked failed at the time reached.
    with pytest.raises(RuntimeError, match="stopped on an error"):
        run.run_until(run.now + 1)
    assert meta(db)["end_reason"] == "failed"
    assert len(mltwin.read_table(db, "jobs")) > 0


@pytest.mark.parametrize("kind, scenario", [("queue", "reclaim-churn.json"), ("task", "tiny-gang.json")])
def test_random_orders_of_every_kind_are_a_clear_error(source_dir, kind, scenario):
    # reclaim-churn has two queues (so queues are ordered); tiny-gang's gangs have 4 pods (so a
    # job's tasks are ordered).
    name = f"test-random-{kind}-order"
    mltwin.register_plugin(name, random_order(kind))
    sc = with_first_tier_plugin(mltwin.load_scenario(source_dir / "tests" / "scenarios" / scenario), name)
    with pytest.raises(RuntimeError, match=rf"^plugin '{name}': its {kind} order function \(add_{kind}_order_fn\) "
                                           r"is not a strict weak order"):
        mltwin.Run(sc).run()


STRESS = r"""
import json, random, sys
import mltwin
from mltwin import policies as P

answers = {
    "random": lambda rng: (lambda l, r: rng.choice([-1, 0, 1])),
    "always -1": lambda rng: (lambda l, r: -1),
    "always 1": lambda rng: (lambda l, r: 1),
    "rock-paper-scissors": lambda rng: (lambda l, r: [0, -1, 1][(r.id - l.id) % 3]),
    "raises": lambda rng: (lambda l, r: 1 // 0 if rng.random() < 0.2 else 0),
}
for scenario in sys.argv[2:]:
    for kind in ("job", "queue", "task"):
        for name, make in answers.items():
            class Plugin(P.Plugin):
                def on_session_open(self, ssn, kind=kind, make=make):
                    getattr(ssn, f"add_{kind}_order_fn")(make(random.Random(3)))
            mltwin.register_plugin("stress", Plugin)
            sc = mltwin.load_scenario(scenario)
            sc["volcano"]["tiers"][0]["plugins"].insert(0, {"name": "stress"})
            print(json.dumps([scenario.rsplit("/", 1)[-1], kind, name]), end=" ", flush=True)
            try:
                mltwin.Run(sc).run(sys.argv[1])
                print("completed", flush=True)
            except (RuntimeError, ZeroDivisionError) as e:
                print(type(e).__name__, str(e)[:60], flush=True)
"""


def test_no_order_crashes_the_process(source_dir):
    # In a child process, so that a crash is this test's failure (with the case it happened in)
    # rather than the end of the test session: every kind of order, answered at random, the
    # same way both ways, intransitively, or raising now and then, on scenarios that run
    # enqueue, allocate, backfill and reclaim (whose victims are ordered by them).
    import subprocess
    import sys
    scenarios = [str(source_dir / "tests" / "scenarios" / s)
                 for s in ("tiny-gang.json", "reclaim-churn.json", "k8s-constraints.json", "sla-starvation.json")]
    child = subprocess.run([sys.executable, "-c", STRESS, "2h"] + scenarios, capture_output=True, text=True,
                           timeout=600)
    assert child.returncode == 0, f"exit {child.returncode}; last case: {child.stdout.splitlines()[-1:]}\n{child.stderr}"
    lines = child.stdout.splitlines()
    assert len(lines) == 4 * 3 * 5
    assert all(line.endswith("completed") or "RuntimeError plugin 'stress': its " in line or "ZeroDivisionError" in line
               for line in lines), child.stdout


class BothFirst(P.Plugin):
    """Says each job goes first, both ways: never consistent."""

    def on_session_open(self, ssn):
        ssn.add_job_order_fn(lambda l, r: -1)


def test_an_order_answering_the_same_both_ways_names_the_pair(tiny_gang):
    # tiny-gang submits a, b, c: enqueue sorts the pending ones and finds the pair out of order.
    mltwin.register_plugin("test-both-first", BothFirst)
    with pytest.raises(RuntimeError) as info:
        mltwin.Run(with_first_tier_plugin(tiny_gang, "test-both-first")).run()
    msg = str(info.value)
    assert msg.startswith("plugin 'test-both-first': its job order function (add_job_order_fn) is not a strict weak "
                          "order: it answered -1 for (job '")
    assert msg.endswith(") (a consistent order answers with opposite signs, or 0 both ways)")


# ---- objects used after their callback or their Run ----

class Keeper(P.Plugin):
    """Keeps what it is handed: the Session, a JobInfo from it, a Resource read from that job,
    and the JobInfo its job order is called with."""

    kept = {}

    def on_session_open(self, ssn):
        jobs = ssn.jobs()
        Keeper.kept["session"] = ssn
        if jobs:
            Keeper.kept["job"] = jobs[0]
            Keeper.kept["job_name"] = jobs[0].name
            Keeper.kept["min_resources"] = jobs[0].min_resources   # a copy: stays readable

        def order(l, r):
            Keeper.kept["order_job"] = l
            return 0
        ssn.add_job_order_fn(order)


def test_objects_kept_after_their_callback_raise_reference_error(tiny_gang):
    mltwin.register_plugin("test-keeper", Keeper)
    Keeper.kept = {}
    run = mltwin.Run(with_first_tier_plugin(tiny_gang, "test-keeper"))
    run.run_until("700s")  # a (0 s), b (0 s) and c (600 s) submitted: sessions opened, jobs ordered
    k = Keeper.kept
    assert {"session", "job", "order_job"} <= set(k)
    with pytest.raises(ReferenceError, match=r"^Session used after the call it was handed to returned: it was valid "
                                             r"only during plugin 'test-keeper''s on_session_open \(and never after "
                                             r"its Run\)"):
        k["session"].jobs()
    with pytest.raises(ReferenceError, match="^Session used after"):
        k["session"].now_ns
    with pytest.raises(ReferenceError, match="^Session used after"):
        k["session"].add_job_order_fn(lambda l, r: 0)
    with pytest.raises(ReferenceError, match=r"^JobInfo used after the call it was handed to returned: it was valid "
                                             r"only during plugin 'test-keeper''s on_session_open"):
        k["job"].name
    with pytest.raises(ReferenceError, match=r"^JobInfo used after .* plugin 'test-keeper''s job order function "
                                             r"\(add_job_order_fn\)"):
        k["order_job"].creation_ns
    # What was copied out during the callback stays.
    assert k["job_name"] in {"a", "b", "c"}
    assert k["min_resources"].get("aws.amazon.com/neurondevice") > 0


def test_a_job_info_read_after_del_run_raises_reference_error(tiny_gang):
    mltwin.register_plugin("test-keeper", Keeper)
    Keeper.kept = {}
    run = mltwin.Run(with_first_tier_plugin(tiny_gang, "test-keeper"))
    run.run_until("700s")
    del run
    gc.collect()
    for key in ("job", "order_job"):
        with pytest.raises(ReferenceError, match="^JobInfo used after"):
            Keeper.kept[key].name
        with pytest.raises(ReferenceError, match="^JobInfo used after"):
            Keeper.kept[key].allocated
    with pytest.raises(ReferenceError, match="^Session used after"):
        Keeper.kept["session"].nodes()


class SeeAll(P.Plugin):
    """Reads every object kind from within its callbacks: all valid there."""

    seen = set()

    def on_session_open(self, ssn):
        for n in ssn.nodes():
            SeeAll.seen.add(("node", n.name, n.idle.cpu >= 0))
        for q in ssn.queues():
            SeeAll.seen.add(("queue", q.name, q.weight > 0))

        def pred(task, node):
            SeeAll.seen.add(("task", task.name, ssn is not None))
            return None
        ssn.add_predicate_fn(pred)


def test_objects_are_valid_during_their_callback(tiny_gang):
    mltwin.register_plugin("test-see-all", SeeAll)
    SeeAll.seen = set()
    mltwin.Run(with_first_tier_plugin(tiny_gang, "test-see-all")).run_until("10s")
    kinds = {k for k, _, _ in SeeAll.seen}
    assert kinds == {"node", "queue", "task"}
    assert all(ok for _, _, ok in SeeAll.seen)


def test_evictable_kept_after_choose_victims_raises_reference_error(source_dir):
    from mltwin.reference import Lru

    kept = []

    class Keep(Lru):
        def choose_victims(self, bytes_needed, now, evictable):
            kept.append(evictable)
            return super().choose_victims(bytes_needed, now, evictable)

    run = mltwin.Run(str(source_dir / "scenarios" / "mme-mms-blog-uniform.json"), memory_cache=Keep)
    run.run("15s")
    assert kept  # the cache evicted
    with pytest.raises(ReferenceError, match="^evictable\\(\\) used after the choose_victims call"):
        kept[0](0)


def test_a_policy_callback_cannot_step_or_close_its_own_run(tiny_gang):
    holder = {}

    class Stepper(P.Plugin):
        def on_session_open(self, ssn):
            holder["run"].run_until(holder["run"].now + 3600)

    mltwin.register_plugin("test-stepper", Stepper)
    run = mltwin.Run(with_first_tier_plugin(tiny_gang, "test-stepper"))
    holder["run"] = run
    with pytest.raises(RuntimeError, match=r"^Run.run_until\(\) called from inside a policy callback of the same run"):
        run.run()


# ---- the registry: process-wide, built-ins shadowed only on purpose ----

class CountingGang(P.Plugin):
    opened = 0

    def on_session_open(self, ssn):
        CountingGang.opened += 1


def test_registering_a_builtin_name_needs_replace(tiny_gang):
    with pytest.raises(ValueError, match=r"^register_plugin\('gang'\): 'gang' is a built-in plugin; pass "
                                         r"replace=True to shadow it"):
        mltwin.register_plugin("gang", CountingGang)
    CountingGang.opened = 0
    mltwin.Run(tiny_gang).run_until("10s")
    assert CountingGang.opened == 0  # the refused registration changed nothing
    try:
        mltwin.register_plugin("gang", CountingGang, replace=True)
        mltwin.Run(tiny_gang).run_until("10s")
        assert CountingGang.opened > 0  # tiny-gang's tiers name gang: the Python one ran
    finally:
        mltwin.unregister_plugin("gang")
    opened = CountingGang.opened
    mltwin.Run(tiny_gang).run_until("10s")
    assert CountingGang.opened == opened  # the built-in is back
    assert "gang" in mltwin.registered_plugins()
    # A name of one's own can be registered again (the later factory wins), and removed.
    mltwin.register_plugin("test-mine", CountingGang)
    mltwin.register_plugin("test-mine", CountingGang)
    mltwin.unregister_plugin("test-mine")
    assert "test-mine" not in mltwin.registered_plugins()
    with pytest.raises(ValueError, match="no plugin of that name"):
        mltwin.unregister_plugin("test-mine")


# ---- wrong answers name the plugin, the callback and the expected type ----

def answering(register, value):
    class Answer(P.Plugin):
        def on_session_open(self, ssn):
            fn = getattr(ssn, register)
            fn(lambda *args: value)
    return Answer


ORDER = r"an int \(negative: the first argument goes first, positive: the second, 0: no preference\)"
SCORE = r"a finite number \(int or float; higher is better\)"
CASES = [
    # (callback, its description, answer, scenario, error, expected, got)
    ("add_job_order_fn", "job order function", 0.5, "tiny-gang.json", TypeError, ORDER, "float 0.5"),
    ("add_job_order_fn", "job order function", None, "tiny-gang.json", TypeError, ORDER, "NoneType None"),
    ("add_job_order_fn", "job order function", "-1", "tiny-gang.json", TypeError, ORDER, "str '-1'"),
    ("add_queue_order_fn", "queue order function", 1.0, "reclaim-churn.json", TypeError, ORDER, "float 1.0"),
    ("add_task_order_fn", "task order function", [1], "tiny-gang.json", TypeError, ORDER, r"list \[1\]"),
    ("add_node_order_fn", "node order function", float("nan"), "tiny-gang.json", ValueError, SCORE, "float nan"),
    ("add_node_order_fn", "node order function", -math.inf, "tiny-gang.json", ValueError, SCORE, "float -inf"),
    ("add_node_order_fn", "node order function", math.inf, "tiny-gang.json", ValueError, SCORE, "float inf"),
    ("add_node_order_fn", "node order function", np.float64("nan"), "tiny-gang.json", ValueError, SCORE, "numpy.float64 nan"),
    ("add_node_order_fn", "node order function", "high", "tiny-gang.json", TypeError, SCORE, "str 'high'"),
    ("add_node_order_fn", "node order function", True, "tiny-gang.json", TypeError, SCORE, "bool True"),
    ("add_predicate_fn", "predicate function", 0, "tiny-gang.json", TypeError,
     r"None or True \(the node fits\), False or a str \(why it does not\)", "int 0"),
    ("add_job_ready_fn", "job ready function", 1, "tiny-gang.json", TypeError, "a bool", "int 1"),
    ("add_job_ready_fn", "job ready function", None, "tiny-gang.json", TypeError, "a bool", "NoneType None"),
    ("add_allocatable_fn", "allocatable function", "yes", "tiny-gang.json", TypeError, "a bool", "str 'yes'"),
    ("add_overused_fn", "overused function", 0.0, "tiny-gang.json", TypeError, "a bool", "float 0.0"),
    ("add_job_starving_fn", "job starving function", 1, "reclaim-churn.json", TypeError, "a bool", "int 1"),
    ("add_job_enqueueable_fn", "job enqueueable function", 2, "tiny-gang.json", ValueError,
     r"1 \(permit\), 0 \(abstain\), -1 \(reject\) or a tuple \(vote, reason: str\)", "int 2"),
    ("add_job_enqueueable_fn", "job enqueueable function", "permit", "tiny-gang.json", TypeError,
     r"1 \(permit\), 0 \(abstain\), -1 \(reject\) or a tuple \(vote, reason: str\)", "str 'permit'"),
    ("add_job_enqueueable_fn", "job enqueueable function", (1, 2), "tiny-gang.json", TypeError,
     r"1 \(permit\), 0 \(abstain\), -1 \(reject\) or a tuple \(vote, reason: str\)", r"tuple \(1, 2\)"),
]


@pytest.mark.parametrize("register, what, value, scenario, error, expected, got", CASES,
                         ids=[f"{c[0]}-{c[2]!r}" for c in CASES])
def test_a_wrong_answer_names_the_plugin_the_callback_and_the_type(source_dir, tmp_path, register, what, value,
                                                                  scenario, error, expected, got):
    mltwin.register_plugin("test-answer", answering(register, value))
    sc = with_first_tier_plugin(mltwin.load_scenario(source_dir / "tests" / "scenarios" / scenario), "test-answer")
    db = tmp_path / "answer.sqlite"
    run = mltwin.Run(sc, out=db)
    with pytest.raises(error, match=rf"^plugin 'test-answer': its {what} \({register}\) must return {expected}, "
                                    rf"got {got}"):
        run.run()
    assert meta(db)["end_reason"] == "failed"


class NumpyAnswers(P.Plugin):
    """NumPy's scalars are answers like Python's: an int64 order, a float64 score, a bool_."""

    calls = set()

    def on_session_open(self, ssn):
        def order(l, r):
            NumpyAnswers.calls.add("order")
            return np.int64(0)

        def score(task, node):
            NumpyAnswers.calls.add("score")
            return np.float64(1.5)

        def ready(job):
            NumpyAnswers.calls.add("ready")
            return np.bool_(True)
        ssn.add_job_order_fn(order)
        ssn.add_node_order_fn(score)
        ssn.add_job_ready_fn(ready)


def test_numpy_scalars_are_accepted_and_change_nothing(tiny_gang):
    ref = mltwin.Run(tiny_gang)
    ref.run()
    mltwin.register_plugin("test-numpy", NumpyAnswers)
    NumpyAnswers.calls = set()
    py = mltwin.Run(with_first_tier_plugin(tiny_gang, "test-numpy"))
    py.run()
    assert NumpyAnswers.calls == {"order", "score", "ready"}
    # An order of 0 abstains, the same score on every node changes no choice, ready agrees with
    # gang's: the jobs' times are the built-in run's.
    cols = ["name", "scheduled_ns", "start_ns", "end_ns"]
    assert py.jobs()[cols].equals(ref.jobs()[cols])

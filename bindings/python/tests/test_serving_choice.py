"""Serving policies chosen by name, and routing and instance scaling written in Python.

Expected values: the rules themselves on hand-made observations (the cache-aware router and
target tracking, stated in policies/include/mltwin/policy/serving.hpp), and independent Python
re-statements (mltwin.reference.CacheAwareRouter, TargetTracking) that must make exactly the
built-ins' decisions, table for table.
"""
import json

import pandas as pd
import pytest

import mltwin
from mltwin import policies as P
from mltwin.reference import CacheAwareRouter, TargetTracking

S = 1_000_000_000


# ---- offline: the registered built-ins by name ----

def test_the_registries_list_the_builtins_with_their_arguments():
    reg = P.serving_policies()
    assert set(reg) == {"autoscaling", "model_cache", "routing", "instance_scaling"}
    assert set(reg["autoscaling"]) >= {"djl-wlm", "mms-static"}
    keys = {a["key"]: a for a in reg["routing"]["cache-aware"]["arguments"]}
    assert keys["heavy_load_per_worker"]["type"] == "number" and keys["heavy_load_per_worker"]["default"] == "2"
    assert keys["max_copies"]["default"] == "0"
    tt = {a["key"]: a for a in reg["instance_scaling"]["target-tracking"]["arguments"]}
    assert tt["target_value"]["default"] is None  # required: AWS gives no default
    assert tt["scale_out_cooldown"]["default"] == "5m0s"  # 300 s, Application Auto Scaling's default


def test_one_set_of_defaults():
    # DJL Serving 0.23.0's job_queue_size default (WlmConfigManager.java) in C++ and in Python.
    assert P.PoolObservation().queue_capacity == 1000
    # The built-in DJL policy refuses a request to an empty default pool (503: no worker runs,
    # WorkerPool.isAllWorkerDied) and adds a worker: the same answer C++ gives for
    # PoolObservation{} (tests/serving).
    d = P.DjlWlmPolicy().on_arrival(P.PoolObservation())
    assert not d.admit and d.add_worker


def view(i, present=True, mo=0, mw=1, out=0, free=0):
    return P.InstanceView(instance=i, model_present=present, model_outstanding=mo, model_workers=mw, outstanding=out,
                          memory_free=free)


def test_cache_aware_router_by_name_offline():
    r = P.make_policy("routing", "cache-aware", {"max_copies": 2})
    assert r.name == "cache-aware"
    fleet = [view(0, True, 1, 1, 5), view(1, True, 1, 1, 3), view(2, False, 0, 0, 0, 10), view(3, False, 0, 0, 0, 20)]
    holders = fleet[:2]
    # Not heavily loaded (1 per worker < 2): the holder with fewer outstanding overall.
    d = r.route(7, 0, holders, fleet)
    assert (d.instance, d.new_copy) == (1, False)
    # Both copies at 2 per worker and max_copies 2 reached: stay on a copy.
    heavy = [view(0, True, 2, 1, 5), view(1, True, 2, 1, 3)]
    assert r.route(7, 0, heavy, heavy + fleet[2:]).instance == 1
    # With no limit, a new copy on the instance with the most free memory.
    r0 = P.make_policy("routing", "cache-aware")
    d = r0.route(7, 0, heavy, lambda: heavy + fleet[2:])
    assert (d.instance, d.new_copy) == (3, True)


def test_target_tracking_by_name_offline():
    tt = P.make_policy("instance_scaling", "target-tracking", {"target_value": 100, "scale_out_cooldown": "60s"})
    obs = P.ScalingObservation(now=600 * S, instances_in_service=2, instances_desired=2, min_instances=1,
                               max_instances=10, invocations_per_instance=[50, 150, 160, 250])
    # three datapoints above 100: adjustment ceil(2 x 250 / 100) - 2 = 3 -> 2 + 3 = 5
    assert tt.evaluate(obs).desired == 5 and tt.evaluate(obs).scale_out_base == -1
    # 30 s ago, 2 -> 5 (3 added, base 2): within the 60 s cooldown, an adjustment of 3 is not larger
    obs.last_scale_out = 570 * S
    obs.instances_desired = 5
    obs.scale_out_base = 2
    assert tt.evaluate(obs).desired == 5 and tt.evaluate(obs).reason == "scale-out cooldown"
    obs.invocations_per_instance = [50, 150, 160, 300]  # adjustment 6 - 2 = 4 > 3: 2 + 4 = 6
    d = tt.evaluate(obs)
    assert (d.desired, d.scale_out_base) == (6, 2)
    obs.invocations_per_instance = [50, 150, 160, 250]
    obs.last_scale_out = 540 * S  # 60 s ago: the cooldown is over, the adjustment 3 adds to 5
    assert tt.evaluate(obs).desired == 8
    obs.instances_desired = 2
    obs.max_instances = 4
    obs.last_scale_out = None
    assert tt.evaluate(obs).desired == 4  # clamped


@pytest.mark.parametrize("kind, name, args, message", [
    ("routing", "cache-awre", None, "unknown routing policy 'cache-awre'; did you mean 'cache-aware'?"),
    ("routing", "cache-aware", {"max_copy": 1}, "reads no argument 'max_copy'; did you mean 'max_copies'?"),
    ("routing", "cache-aware", {"max_copies": "two"}, "arguments.max_copies: expected an integer, got str 'two'"),
    ("routing", "cache-aware", {"heavy_load_per_worker": "2.5"}, "expected a number, got str"),
    ("autoscaling", "djl-wlm", {"idle_from_batch_end": "true"}, "expected true or false, got str"),
    ("routing", "cache-aware", {"max_copies": -1}, "expected an integer >= 0"),
    ("instance_scaling", "target-tracking", {}, "required"),
    ("autoscaling", "djl-wlm", {"idle_from_batch_end": [1]}, "must be a bool, int, float or str"),
    ("routers", "cache-aware", None, "kind: expected autoscaling"),
])
def test_make_policy_errors(kind, name, args, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace("?", r"\?")):
        P.make_policy(kind, name, args)


# ---- in a run ----

BLOG = "mme-djl-blog-top-n.json"


def test_python_router_restating_cache_aware_makes_the_builtin_decisions(source_dir):
    sc = str(source_dir / "scenarios" / BLOG)
    ref = mltwin.Run(sc, seed=6)
    ref.run("40s")
    router = CacheAwareRouter()
    py = mltwin.Run(sc, seed=6, routing=router)
    py.run("40s")
    assert py.summary()["requests"] > 20_000
    for t in ["requests", "worker_events", "model_events", "endpoint_metrics"]:
        pd.testing.assert_frame_equal(ref.table(t), py.table(t))
    # The run records the policies it ran.
    assert py.table("run_meta").set_index("key").loc["serving_policies", "value"].startswith(
        "autoscaling djl-wlm, routing cache-aware, instance scaling none")


def test_python_target_tracking_makes_the_builtin_decisions(source_dir):
    sc = str(source_dir / "scenarios" / "mme-azure-functions.json")
    ref = mltwin.Run(sc, seed=3)
    ref.run("3h")
    py = mltwin.Run(sc, seed=3, instance_scaling=TargetTracking(450))
    py.run("3h")
    inst = ref.table("instance_events")
    assert (inst["event"] == "DesiredChanged").sum() >= 2  # the test exercises scaling
    for t in ["instance_events", "endpoint_metrics", "requests"]:
        pd.testing.assert_frame_equal(ref.table(t), py.table(t))


def test_choosing_by_name_equals_the_same_choice_in_the_scenario(source_dir):
    path = source_dir / "scenarios" / BLOG
    choice = {"name": "cache-aware", "arguments": {"max_copies": 1, "heavy_load_per_worker": 1.0}}
    doc = json.loads(path.read_text())
    doc["policies"]["routing"] = choice
    a = mltwin.Run(doc, path=str(path), seed=2)
    a.run("10s")
    b = mltwin.Run(str(path), seed=2, routing=choice)
    b.run("10s")
    for t in ["requests", "model_events"]:
        pd.testing.assert_frame_equal(a.table(t), b.table(t))
    # ... and it replaces the scenario's routing choice whole (its arguments too).
    assert json.loads(b._run.scenario_json)["policies"]["routing"] == choice
    # A name alone: the policy's defaults.
    c = mltwin.Run(str(path), seed=2, autoscaling="mms-static")
    assert json.loads(c._run.scenario_json)["policies"]["autoscaling"] == {"name": "mms-static"}


def test_a_bad_choice_names_the_place(source_dir):
    path = str(source_dir / "scenarios" / BLOG)
    with pytest.raises(mltwin.ScenarioError, match="/policies/routing/name: unknown routing policy 'nearest'"):
        mltwin.Run(path, routing="nearest")
    with pytest.raises(mltwin.ScenarioError, match="/policies/instance_scaling/arguments/target_value: .*required"):
        mltwin.Run(path, instance_scaling={"name": "target-tracking"})
    with pytest.raises(ValueError, match="routing: a policy choice needs its \"name\""):
        mltwin.Run(path, routing={"arguments": {}})
    with pytest.raises(ValueError, match="routing: expected a policy name, a choice .* or an object with route"):
        mltwin.Run(path, routing=object())
    with pytest.raises(ValueError, match="instance_scaling: .* an object with evaluate"):
        mltwin.Run(path, instance_scaling=42)
    with pytest.raises(ValueError, match="routing: pass an instance of RoutingPolicy, not the class"):
        mltwin.Run(path, routing=P.RoutingPolicy)


class Elsewhere(P.RoutingPolicy):
    name = "elsewhere"

    def route(self, model, now, holders, everyone):
        return P.RouteDecision(999)


class TooMany(P.InstanceScalingPolicy):
    def evaluate(self, obs):
        return P.ScalingDecision(obs.max_instances + 1)


class KeepsEveryone(P.RoutingPolicy):
    def __init__(self):
        self.kept = None

    def route(self, model, now, holders, everyone):
        self.kept = everyone
        return P.RouteDecision(everyone()[0].instance)


def test_bad_python_decisions_are_clear_errors_not_crashes(source_dir):
    path = str(source_dir / "scenarios" / BLOG)
    run = mltwin.Run(path, routing=Elsewhere())
    with pytest.raises(ValueError, match="elsewhere.route chose instance 999, which is not in service"):
        run.run("1s")
    run = mltwin.Run(str(source_dir / "scenarios" / "mme-azure-functions.json"), instance_scaling=TooMany())
    with pytest.raises(ValueError, match="wants 21 instances, outside min_instances .. max_instances \\(1 .. 20\\)"):
        run.run("10m")
    k = KeepsEveryone()
    run = mltwin.Run(path, routing=k)
    run.run("1s")
    with pytest.raises(ReferenceError, match="everyone\\(\\) used after the route call"):
        k.kept()


def test_python_reasons_live_with_their_decisions_not_for_ever(source_dir):
    # A reason built per call is kept by its decision object only (the run copies it), so
    # distinct reasons cost no memory after the call: the decision keeps its own text.
    d = P.RouteDecision(3, reason="a " + "b" * 1000)
    copy_of = P.RouteDecision(d.instance, reason=d.reason)
    assert copy_of.reason == d.reason and len(d.reason) == 1002
    d.reason = "changed"
    assert d.reason == "changed" and copy_of.reason.startswith("a b")

    class Chatty(P.RoutingPolicy):
        name = "chatty"

        def route(self, model, now, holders, everyone):
            v = holders[0] if holders else everyone()[0]
            return P.RouteDecision(v.instance, reason=f"model {model} at {now} ns")

    run = mltwin.Run(str(source_dir / "scenarios" / BLOG), seed=1, routing=Chatty())
    run.run("20s")
    assert run.summary()["requests"] > 1000


def test_reference_defaults_are_the_registry_defaults():
    # One set of defaults: the Python re-statements read theirs from the registries.
    reg = P.serving_policies()
    args = {a["key"]: a["default"] for a in reg["routing"]["cache-aware"]["arguments"]}
    r = CacheAwareRouter()
    assert r.heavy_load_per_worker == float(args["heavy_load_per_worker"]) and r.max_copies == int(args["max_copies"])
    tt = TargetTracking(100)
    targs = {a["key"]: a["default"] for a in reg["instance_scaling"]["target-tracking"]["arguments"]}
    assert tt.scale_out_cooldown == P.parse_go_duration_ns(targs["scale_out_cooldown"]) == 300 * S
    assert tt.scale_in_datapoints == int(targs["scale_in_datapoints"]) and tt.scale_in_ratio == float(targs["scale_in_ratio"])


def test_examples_find_the_checkout_its_scenarios_and_the_data(source_dir):
    from mltwin import examples
    assert examples.source_dir() == source_dir.resolve()
    assert examples.scenario("mme-djl-blog-top-n") == source_dir.resolve() / "scenarios" / "mme-djl-blog-top-n.json"
    assert examples.scenario("eks-trn1-philly.json").is_file()
    with pytest.raises(FileNotFoundError, match="no scenario 'nope' in .* \\(shipped: .*eks-trn1-philly"):
        examples.scenario("nope")
    assert (examples.data_dir() / "training" / "philly").is_dir()


def test_check_text_holds_a_notebook_to_its_numbers():
    from mltwin import examples
    assert examples.check_text([("p99 = 9.3 ms", 9.3, 9.34, 0.05), ("no 503", 0, 0, 0)]) == 2
    with pytest.raises(AssertionError, match=r"(?s)1 of 2 numbers .*'p50 = 1.4 ms' \(1.4 within 0.05\); this run gives 1.52"):
        examples.check_text([("p50 = 1.4 ms", 1.4, 1.52, 0.05), ("no 503", 0, 0, 0)])
    with pytest.raises(AssertionError, match="this run gives nan"):
        examples.check_text([("a mean", 1.0, float("nan"), 1.0)])


def test_instance_scaling_on_a_fixed_size_endpoint_is_a_warning(source_dir):
    path = str(source_dir / "scenarios" / BLOG)  # min = max = 20
    with pytest.warns(mltwin.ScenarioWarning, match="min_instances = max_instances = 20: the fleet cannot change"):
        mltwin.Run(path, instance_scaling=TargetTracking(450))
    with pytest.raises(mltwin.ScenarioError, match="the fleet cannot change"):
        mltwin.Run(path, instance_scaling={"name": "target-tracking", "arguments": {"target_value": 450}}, strict=True)

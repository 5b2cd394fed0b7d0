"""Policies written in Python, and the policy API's types.

Serving (inference runs; pass to :class:`mltwin.Run` as ``autoscaling=`` /
``memory_cache=`` / ``disk_cache=`` / ``routing=`` / ``instance_scaling=``, or choose a
registered one by name there or in the scenario's ``policies`` block):

* an **AutoscalingPolicy** is any object with ``name`` and
  ``on_arrival(pool: PoolObservation) -> AdmitDecision`` (called once per request that reaches
  a loaded model: admit or 503, add a worker or not) and
  ``on_worker_free(worker: WorkerObservation) -> WorkerDecision`` (called when a worker is free:
  retire, or poll for a job until a deadline). Times are integer ns. The built-ins
  ``DjlWlmPolicy`` (DJL Serving 0.23.0's WorkLoadManager) and ``MmsStaticPolicy`` (MMS v1.1.9)
  are callable the same way, so a Python policy can delegate to them and a test can feed them
  observations offline.
* a **ModelCachePolicy** (one per instance: pass a class or factory) has ``on_insert(model,
  bytes, now)``, ``on_access(model, now)``, ``on_resize(model, bytes)``, ``on_remove(model)``
  and ``choose_victims(bytes_needed, now, evictable) -> list[int] | None`` (models to remove, in
  order, freeing at least bytes_needed among those ``evictable(model)`` allows; None when they
  cannot). ``make_lru_cache_policy()`` is the built-in LRU.
* a **RoutingPolicy** has ``route(model, now, holders, everyone) -> RouteDecision``, called
  once per request: ``holders`` is the list of :class:`InstanceView` of the in-service
  instances where the model is loaded or loading (sorted by id, maybe empty), ``everyone()``
  returns the views of all in-service instances (a pass over the fleet: call it only when
  needed; valid during the call only). Return ``RouteDecision(instance)`` with one of those ids;
  mltwin sets ``new_copy`` from whether the model is there. Cost: one Python call per request
  (docs/inference.md gives the measured cost).
* an **InstanceScalingPolicy** has ``evaluate(obs: ScalingObservation) -> ScalingDecision``,
  called once per completed metric minute with the per-minute InvocationsPerInstance
  datapoints; ``desired`` must stay within the endpoint's min_instances .. max_instances.

``make_policy(kind, name, arguments)`` builds a registered policy (built-in or the user's) by
name, e.g. ``make_policy("routing", "cache-aware", {"max_copies": 2})``, callable offline the
same way; ``serving_policies()`` lists every registered one with its arguments (their keys,
types, defaults and sources; ``mltwin policies`` prints the same table).

Scheduling (training runs): :func:`mltwin.register_plugin` ``(name, factory)`` makes a plugin
usable by name in a scenario's Volcano tiers; ``factory(arguments)`` returns an object with
``on_session_open(session: Session)`` that registers callbacks (``add_job_order_fn``,
``add_predicate_fn``, ``add_node_order_fn``, ``add_job_enqueueable_fn``, ...). Combination
rules are Volcano v1.12.1's (policies/include/mltwin/policy/session.hpp). The Session and the
JobInfo / TaskInfo / NodeInfo / QueueInfo a callback receives are valid during that call only
(ReferenceError after); answers of the wrong type, NaN or infinite scores and orders that are
not strict weak orders stop the run with an error naming the plugin and the callback. A
built-in plugin's name is registered again only with ``replace=True``.

The base classes below only document the interfaces; duck typing works as well.
"""
from __future__ import annotations

from typing import Callable, List, Optional

from ._mltwin import (AdmitDecision, DjlWlmPolicy, InstanceView, JobInfo, MmsStaticPolicy, NodeInfo, PoolObservation,
                      QueueInfo, Resource, RouteDecision, ScalingDecision, ScalingObservation, Session, TaskInfo,
                      WorkerDecision, WorkerObservation, make_lru_cache_policy, make_policy, parse_go_duration_ns,
                      serving_policies)

__all__ = [
    "AdmitDecision", "AutoscalingPolicy", "DjlWlmPolicy", "InstanceScalingPolicy", "InstanceView", "JobInfo",
    "ModelCachePolicy", "MmsStaticPolicy", "NodeInfo", "Plugin", "PoolObservation", "QueueInfo", "Resource",
    "RouteDecision", "RoutingPolicy", "ScalingDecision", "ScalingObservation", "Session", "TaskInfo", "WorkerDecision",
    "WorkerObservation", "make_lru_cache_policy", "make_policy", "parse_go_duration_ns", "serving_policies",
]


class AutoscalingPolicy:
    """Worker autoscaling for one endpoint's model pools (the serving policy API)."""

    name = "python-autoscaling"

    def on_arrival(self, pool: PoolObservation) -> AdmitDecision:
        raise NotImplementedError

    def on_worker_free(self, worker: WorkerObservation) -> WorkerDecision:
        raise NotImplementedError


class ModelCachePolicy:
    """One cache (an instance's memory or disk). Sizes in bytes, times in ns."""

    name = "python-cache"

    def on_insert(self, model: int, bytes: int, now: int) -> None:
        raise NotImplementedError

    def on_access(self, model: int, now: int) -> None:
        raise NotImplementedError

    def on_resize(self, model: int, bytes: int) -> None:
        raise NotImplementedError

    def on_remove(self, model: int) -> None:
        raise NotImplementedError

    def choose_victims(self, bytes_needed: int, now: int, evictable: Callable[[int], bool]) -> Optional[List[int]]:
        raise NotImplementedError


class RoutingPolicy:
    """Which in-service instance receives a request of a model (one call per request)."""

    name = "python-routing"

    def route(self, model: int, now: int, holders: List[InstanceView],
              everyone: Callable[[], List[InstanceView]]) -> RouteDecision:
        raise NotImplementedError


class InstanceScalingPolicy:
    """How many instances the endpoint wants (one call per completed metric minute)."""

    name = "python-instance-scaling"

    def evaluate(self, obs: ScalingObservation) -> ScalingDecision:
        raise NotImplementedError


class Plugin:
    """A Volcano scheduler plugin: a fresh one per session (as Volcano makes them)."""

    def __init__(self, arguments: dict):
        self.arguments = arguments

    def on_session_open(self, session: Session) -> None:
        raise NotImplementedError

    def on_session_close(self, session: Session) -> None:
        pass

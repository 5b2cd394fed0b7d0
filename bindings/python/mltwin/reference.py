"""The built-in serving policies re-written in Python, as starting points for your own.

Each makes exactly the decisions of its C++ counterpart (the tests run both and compare every
table), so a notebook can start from a faithful baseline and change one rule:

* :class:`DjlWlm` — DJL Serving 0.23.0's worker autoscaling (WorkLoadManager.runJob / scaleUp,
  wlm/src/main/java/ai/djl/serving/wlm/WorkLoadManager.java; TemporaryBatchAggregator's idle
  rule), the C++ ``DjlWlmPolicy``.
* :class:`Lru` — least-recently-used model cache, the C++ ``make_lru_cache_policy()``.
* :class:`CacheAwareRouter` — the MME-like router, the C++ ``"cache-aware"`` routing policy.
* :class:`TargetTracking` — Application Auto Scaling target tracking on InvocationsPerInstance,
  the C++ ``"target-tracking"`` instance scaling policy.

Times are integer ns, sizes bytes.
"""
from __future__ import annotations

import collections
import math
from typing import Callable, List, Optional

from ._mltwin import (AdmitDecision, InstanceView, RouteDecision, ScalingDecision, ScalingObservation, WorkerDecision,
                      parse_go_duration_ns, serving_policies)
from .policies import AutoscalingPolicy, InstanceScalingPolicy, ModelCachePolicy, RoutingPolicy

__all__ = ["CacheAwareRouter", "DjlWlm", "Lru", "TargetTracking"]


class DjlWlm(AutoscalingPolicy):
    """DJL Serving 0.23.0's WorkLoadManager, in Python.

    on_arrival: a request is rejected (503) when the job queue has one slot left and no worker
    is free (all busy), when the queue is full, when no worker runs (one is then started), or
    when max_workers is 0; a rejection still tries to add a worker. An admitted request adds
    one worker when fewer than max_workers run and the queue, with the request, holds more
    than 2 x batch_size.

    on_worker_free: permanent workers never retire; a temporary worker retires when more than
    max_idle_time has passed since it last *took* a batch (DJL's rule), or — with
    ``idle_from_batch_end`` — after a whole max_idle_time without a job (the remedy).
    """

    def __init__(self, idle_from_batch_end: bool = False):
        self.idle_from_batch_end = idle_from_batch_end
        if type(self).name == AutoscalingPolicy.name:  # a subclass may name itself
            self.name = "djl-wlm+idle-from-batch-end" if idle_from_batch_end else "djl-wlm"

    def on_arrival(self, pool) -> AdmitDecision:
        remaining = pool.queue_capacity - pool.queue_size
        can_grow = pool.workers_running < pool.max_workers
        if pool.max_workers == 0:
            return AdmitDecision(False, False, "all model workers have been shut down")
        if remaining == 1 and pool.workers_started == 0:
            return AdmitDecision(False, can_grow, "job queue has one slot left and every worker is busy")
        if pool.workers_running == 0:
            return AdmitDecision(False, can_grow, "no worker is running (isAllWorkerDied): one is starting")
        if remaining <= 0:
            return AdmitDecision(False, can_grow, "job queue is full")
        if can_grow and pool.queue_size + 1 > 2 * pool.batch_size:
            return AdmitDecision(True, True, "job queue longer than 2 x batch_size")
        return AdmitDecision(True, False, "")

    def on_worker_free(self, worker) -> WorkerDecision:
        if not worker.temporary:
            return WorkerDecision(False, None)
        if self.idle_from_batch_end:
            if worker.poll_timed_out:
                return WorkerDecision(True, None)
            return WorkerDecision(False, worker.now + worker.max_idle_time)
        if worker.now - worker.idle_since > worker.max_idle_time:
            return WorkerDecision(True, None)
        return WorkerDecision(False, worker.now + worker.max_idle_time)


class Lru(ModelCachePolicy):
    """Least recently used first: victims are taken from the least recently inserted-or-used
    end, skipping models that cannot be evicted now, until at least bytes_needed are freed;
    None (and no victim) when the evictable models together hold less."""

    name = "lru"

    def __init__(self):
        self._order: "collections.OrderedDict[int, int]" = collections.OrderedDict()  # model -> bytes

    def on_insert(self, model: int, bytes: int, now: int) -> None:
        self._order[model] = bytes
        self._order.move_to_end(model)

    def on_access(self, model: int, now: int) -> None:
        if model in self._order:
            self._order.move_to_end(model)

    def on_resize(self, model: int, bytes: int) -> None:
        if model in self._order:
            self._order[model] = bytes

    def on_remove(self, model: int) -> None:
        self._order.pop(model, None)

    def choose_victims(self, bytes_needed: int, now: int, evictable: Callable[[int], bool]) -> Optional[List[int]]:
        victims: List[int] = []
        freed = 0
        for model, size in self._order.items():
            if freed >= bytes_needed:
                break
            if evictable(model):
                victims.append(model)
                freed += size
        return victims if freed >= bytes_needed else None


def _default(kind: str, name: str, key: str) -> str:
    """The registry's default of a built-in's argument (one set of defaults, C++'s), as text."""
    for a in serving_policies()[kind][name]["arguments"]:
        if a["key"] == key:
            return a["default"]
    raise KeyError(f"{kind} policy {name!r} declares no argument {key!r}")


class CacheAwareRouter(RoutingPolicy):
    """The built-in MME-like router, in Python.

    To the holder of the model with the fewest of the model's outstanding requests (then fewest
    overall, then lowest id); when no instance holds it, or every copy has at least
    ``heavy_load_per_worker`` outstanding requests per worker and ``max_copies`` (0: no limit)
    allows another copy, to the instance without it with the most free memory (then fewest
    outstanding, then lowest id).
    """

    name = "cache-aware"

    def __init__(self, heavy_load_per_worker: Optional[float] = None, max_copies: Optional[int] = None):
        # None: the built-in's default (from its registry entry).
        self.heavy_load_per_worker = (float(_default("routing", "cache-aware", "heavy_load_per_worker"))
                                      if heavy_load_per_worker is None else heavy_load_per_worker)
        self.max_copies = int(_default("routing", "cache-aware", "max_copies")) if max_copies is None else max_copies

    def route(self, model: int, now: int, holders: List[InstanceView],
              everyone: Callable[[], List[InstanceView]]) -> RouteDecision:
        best = None
        all_heavy = True
        for v in holders:  # sorted by id: ties keep the lowest
            if v.model_outstanding / max(v.model_workers, 1) < self.heavy_load_per_worker:
                all_heavy = False
            if best is None or (v.model_outstanding, v.outstanding) < (best.model_outstanding, best.outstanding):
                best = v
        may_copy = self.max_copies <= 0 or len(holders) < self.max_copies
        if best is not None and not (all_heavy and may_copy):
            return RouteDecision(best.instance)
        new = None
        for v in everyone():
            if v.model_present:
                continue
            if new is None or v.memory_free > new.memory_free or (
                    v.memory_free == new.memory_free and v.outstanding < new.outstanding):
                new = v
        if best is None:
            return RouteDecision(new.instance, True, "model not loaded on any instance")
        if new is not None:
            return RouteDecision(new.instance, True, "every copy of the model is heavily loaded")
        return RouteDecision(best.instance)


class TargetTracking(InstanceScalingPolicy):
    """Application Auto Scaling target tracking on InvocationsPerInstance, in Python.

    A high alarm (the last ``scale_out_datapoints`` datapoints all above the target) computes
    the scaling adjustment ceil(N x last datapoint / target) - N, N the instances in service.
    Out of the scale-out cooldown it adds that to the desired count. Within ``scale_out_cooldown``
    of the last scale-out (and no scale-in since), the capacity the cooldown's scale-outs added
    (desired - ``scale_out_base``) counts as part of it: only a larger adjustment acts, taking
    the count to ``scale_out_base`` + adjustment and handing the same base back; the same or a
    smaller one is ignored. A low alarm (the last ``scale_in_datapoints`` all below
    ``scale_in_ratio`` x target) lowers the count to ceil(N x last / target), unless a scale-in
    happened less than ``scale_in_cooldown`` ago with no scale-out since (a scale-out ends the
    scale-in cooldown). Everything clamped to min..max. Application Auto Scaling User Guide,
    "Target tracking scaling policies", "Define cooldown periods". The arguments are the
    built-in's (cooldowns as Go durations, "300s"); each left out takes the built-in's default.
    """

    name = "target-tracking"

    def __init__(self, target_value: float, scale_out_cooldown: Optional[str] = None,
                 scale_in_cooldown: Optional[str] = None, scale_out_datapoints: Optional[int] = None,
                 scale_in_datapoints: Optional[int] = None, scale_in_ratio: Optional[float] = None,
                 disable_scale_in: Optional[bool] = None):
        # The arguments of the built-in (durations as Go writes them, "300s"); None: its default.
        def arg(key, given, parse):
            return parse(_default("instance_scaling", "target-tracking", key) if given is None else given)

        self.target = target_value
        self.scale_out_cooldown = arg("scale_out_cooldown", scale_out_cooldown, parse_go_duration_ns)
        self.scale_in_cooldown = arg("scale_in_cooldown", scale_in_cooldown, parse_go_duration_ns)
        self.scale_out_datapoints = arg("scale_out_datapoints", scale_out_datapoints, int)
        self.scale_in_datapoints = arg("scale_in_datapoints", scale_in_datapoints, int)
        self.scale_in_ratio = arg("scale_in_ratio", scale_in_ratio, float)
        self.disable_scale_in = arg("disable_scale_in", disable_scale_in,
                                    lambda v: v if isinstance(v, bool) else v == "true")

    def evaluate(self, obs: ScalingObservation) -> ScalingDecision:
        m = obs.invocations_per_instance
        current = obs.instances_desired
        if not m:
            return ScalingDecision(current)

        def tail_all(k, pred):
            return 0 < k <= len(m) and all(pred(v) for v in m[-k:])

        def within(then, cooldown):
            return then is not None and obs.now - then < cooldown

        measured_on = obs.instances_in_service if obs.instances_in_service > 0 else current

        def clamp(n):
            return min(max(n, obs.min_instances), obs.max_instances)

        def proportional():
            return math.ceil(measured_on * m[-1] / self.target)

        if tail_all(self.scale_out_datapoints, lambda v: v > self.target):
            adjustment = proportional() - measured_on
            if adjustment <= 0:
                return ScalingDecision(current)
            cooling = within(obs.last_scale_out, self.scale_out_cooldown) and (
                obs.last_scale_in is None or obs.last_scale_in < obs.last_scale_out)
            if not cooling:
                want = clamp(current + adjustment)
                if want > current:
                    return ScalingDecision(want, "high alarm: InvocationsPerInstance above target")
                return ScalingDecision(current)
            want = clamp(obs.scale_out_base + adjustment)
            if want > current:
                return ScalingDecision(want, "high alarm: a larger scale-out within the scale-out cooldown",
                                       obs.scale_out_base)
            return ScalingDecision(current, "scale-out cooldown")
        if not self.disable_scale_in and tail_all(self.scale_in_datapoints,
                                                  lambda v: v < self.scale_in_ratio * self.target):
            ended = obs.last_scale_out is not None and (obs.last_scale_in is None
                                                        or obs.last_scale_out >= obs.last_scale_in)
            if not ended and within(obs.last_scale_in, self.scale_in_cooldown):
                return ScalingDecision(current, "scale-in cooldown")
            want = clamp(proportional())
            if want < current:
                return ScalingDecision(want, "low alarm: InvocationsPerInstance below target")
        return ScalingDecision(current)
